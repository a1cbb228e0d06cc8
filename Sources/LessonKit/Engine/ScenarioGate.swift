/// One scenario at a time in a process.
///
/// Every scenario shares `OperationQueue.main`: a step that blocks it (step 1
/// does, on purpose) would show up as stalls in any scenario running beside it,
/// and the instruments are per scenario only if scenarios do not overlap. Tests
/// may run in parallel; their scenarios wait their turn here.
actor ScenarioGate {
    static let shared = ScenarioGate()

    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
