/// One scenario at a time in a process.
///
/// Every scenario shares `OperationQueue.main`: a step that blocks it (step 1
/// does, on purpose) would show up as stalls in any scenario running beside it,
/// and the instruments are per scenario only if scenarios do not overlap. Tests
/// may run in parallel; their scenarios wait their turn here.
actor ScenarioGate {
    static let shared = ScenarioGate()

    /// True in a task that holds the gate through `holding`: the runs it plays
    /// meanwhile are alone already, and go straight in.
    @TaskLocal static var isHeld = false

    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        if Self.isHeld { return }
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if Self.isHeld { return }
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()
        }
    }

    /// Runs `body` holding the gate, so that what it starts beside its runs
    /// (threads that keep the cores busy, tasks that crowd the main queue)
    /// starts once they are next, and not while they wait behind other tests'
    /// runs, which it would slow.
    static func holding<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        if isHeld { return try await body() }
        await shared.enter()
        do {
            let result = try await $isHeld.withValue(true) { try await body() }
            await shared.leave()
            return result
        } catch {
            await shared.leave()
            throw error
        }
    }
}
