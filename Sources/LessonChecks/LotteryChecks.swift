import Foundation
import LessonKit

/// The checks of exercise 9 (the lottery machine), parameterized by the code
/// under test: anything that makes a `LotteryMachineExercise` (step 9's
/// `LotteryViewController`, the exercise's starting code, the workbench).
///
/// One session, as a user plays it: start, let it roll, pause, watch, resume,
/// quit. Every wait is for a condition, bounded.
public enum LotteryChecks {
    /// Builds the machine under test, on the main queue (it is a view controller).
    public typealias Make =
        @MainActor (_ tick: Double, _ seed: UInt64, _ trace: OperationTrace) ->
        any LotteryMachineExercise

    /// 10 ms between rolls (the tutorial's 50 ms at 5×): quick, and still long next to a press.
    public static let tick = 0.01
    /// How long the queue gets to empty after a pause before the rolling counts as unstoppable.
    static let pauseWatch = 1.5

    public static let suspension = BugText(
        name: "pausing does not stop the rolling",
        expected:
            "at most 1 roll after pause (the one already sleeping) · the queue empty soon after · rolling again after "
            + "resume",
        hint:
            "`isSuspended` only keeps the queue from starting operations: make the rolling loop check "
            + "`queue.isSuspended` (and `isCancelled`) on every tick and end when it is set.",
        why:
            "Suspending a queue stops it from *starting* operations, not the one already running: the rolling "
            + "operation keeps going unless it looks at `isSuspended` itself. Once it ends, the queue is empty, so "
            + "resuming has to start a new rolling operation (the button does that when `operationCount` is 0).")
    public static let mainQueue = BugText(
        name: "the digits are written off the main queue",
        expected: "every roll shown on the main queue · 0 main-queue violations",
        hint:
            "Roll on the queue's thread, but set the labels inside `OperationQueue.main.addOperation { … }`: "
            + "labels are UI.",
        why:
            "The rolling loop runs on the queue's worker thread; the labels are UI and belong to the main queue. "
            + "UIKit's Main Thread Checker would flag every label set from the loop; TableKit counts them as "
            + "main-queue violations.")

    /// A machine handed between the main queue and the check. Only touched on
    /// the main queue, or read through its own locks (`shownRolls`).
    struct Held: @unchecked Sendable {
        let machine: any LotteryMachineExercise
    }

    public static func check(narrate: ((String) -> Void)? = nil, make: @escaping Make) async -> [CheckResult] {
        let trace = OperationTrace()
        let (session, violations) = await ExclusiveRun.run { instruments in
            let held = await MainActor.run { Held(machine: make(tick, 7, trace)) }
            let session = await play(held, trace: trace)
            await held.machine.quit()
            return (session, instruments.mainQueueViolations.count)
        }
        narrate?(
            "start: \(session.rolled ? "rolling" : "the digits never rolled") · pause: "
                + "\(counted(session.rollsAfterPause, "roll")) after it, "
                + "\(counted(session.operationsAfterPause, "operation")) left in the queue "
                + "\(String(format: "%g", pauseWatch)) s later · resume: \(session.rolledAgain ? "rolling again" : "no new rolls")"
        )
        let rolls = session.rolls
        let offMain = rolls.filter { !$0.onMainQueue }.count
        return [
            suspension.result(
                passed: session.rolled && session.rollsAfterPause <= 1 && session.operationsAfterPause == 0
                    && session.rolledAgain,
                measured: session.rolled
                    ? "\(counted(session.rollsAfterPause, "roll")) after pause · "
                        + "\(counted(session.operationsAfterPause, "operation")) still in the queue "
                        + "\(String(format: "%g", pauseWatch)) s later · rolling again after resume: "
                        + (session.rolledAgain ? "yes" : "no")
                    : "the digits never rolled after start"),
            mainQueue.result(
                passed: !rolls.isEmpty && offMain == 0 && violations == 0,
                measured: "\(offMain) of \(rolls.count) rolls shown off the main queue · \(violations) main-queue "
                    + "violations"),
        ]
    }

    struct Session {
        var rolled = false
        var rollsAfterPause = 0
        var operationsAfterPause = 0
        var rolledAgain = false
        var rolls: [(rolledMs: Double, onMainQueue: Bool)] = []
    }

    static func play(_ held: Held, trace: OperationTrace) async -> Session {
        let machine = held.machine
        var session = Session()
        func press() async -> Double {
            await MainActor.run {
                let ms = trace.now()
                held.machine.buttonTapped()
                return ms
            }
        }
        func rolls(after ms: Double) -> Int { machine.shownRolls.filter { $0.rolledMs > ms }.count }

        _ = await press()
        session.rolled = await eventually(timeout: 10) { machine.shownRolls.count >= 5 }
        if session.rolled {
            let pausedAt = await press()
            _ = await eventually(timeout: pauseWatch) { machine.queue.operationCount == 0 }
            await mainQueueCaughtUp()
            session.rollsAfterPause = rolls(after: pausedAt)
            session.operationsAfterPause = machine.queue.operationCount
            let resumedAt = await press()
            session.rolledAgain = await eventually(timeout: 5) { rolls(after: resumedAt) >= 3 }
        }
        session.rolls = machine.shownRolls
        return session
    }

    /// Returns once the main queue has run everything queued on it before now.
    static func mainQueueCaughtUp() async {
        await withCheckedContinuation { done in OperationQueue.main.addOperation { done.resume() } }
    }
}

/// Waits, without blocking a thread, until `condition` holds; false if it
/// still does not after `timeout` seconds. For conditions, never for time.
func eventually(timeout: Double, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
