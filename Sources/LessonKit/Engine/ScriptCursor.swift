import SlowNetwork
import TableKit

/// Where a run is in its scenario's script: the step under way, when it
/// began, and its gesture if it scrolls. A script driven by the learner's
/// keys grows a step at a time as they are pressed.
struct ScriptCursor {
    private var steps: [Scenario.Step]
    private let keys: PlayKeys?
    private var index = 0
    /// When the step under way began; nil until it does.
    private var stepStart: StoryTime?
    /// The drag or fling under way, set by the step that begins it.
    var gesture: Gesture?

    /// `step`: the first step to play (a relaunch's new process goes on after the relaunch).
    init(_ scenario: Scenario, from step: Int = 0) {
        steps = scenario.steps
        keys = scenario.keys
        index = step
    }

    /// Whether the learner's keys write the script (`lessons play`).
    var isDrivenByKeys: Bool { keys != nil }

    /// The step under way, or the next to begin.
    var position: Int { index }

    /// Every step has been played, and no key will bring another.
    var isOver: Bool { index == steps.count && keys?.hasQuit != false }

    /// The step under way at `now`, and whether it begins now; nil when there
    /// is none (yet: a key may bring one on a later frame). The keys read where
    /// `table` stands.
    mutating func stepUnderWay(at now: StoryTime, table: TableView?) -> (step: Scenario.Step, begins: Bool)? {
        if index == steps.count, let keys,
            let step = keys.next(
                atSeconds: now.seconds, topRow: table?.contentOffset ?? 0,
                visibleRows: Array(table?.visibleRows ?? 0..<0))
        {
            steps.append(step)
        }
        guard index < steps.count else { return nil }
        let begins = stepStart == nil
        if begins { stepStart = now }
        return (steps[index], begins)
    }

    /// How long the step under way has run at `now`, in story seconds.
    func elapsed(at now: StoryTime) -> Double { (now - (stepStart ?? now)).seconds }

    /// The step under way is over: the next one begins on a later frame.
    mutating func stepEnded() {
        index += 1
        stepStart = nil
    }
}
