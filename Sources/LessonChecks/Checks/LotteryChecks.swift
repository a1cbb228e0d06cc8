import Foundation
import LotteryMachineStory
import LessonKit
import LessonSupport

/// The checks of exercise 9 (the lottery machine), parameterized by the code
/// under test: a machine type (step 9's `LotteryViewController` or one of its
/// variants, the exercise's starting code, the workbench's), made and watched
/// as a `ScreenSession`: its button pressed, the digits it draws timed on the
/// thread that draws them, its labels' writes off the main queue counted by
/// TableKit.
///
/// One session, as a user plays it on the story clock: start, let it roll,
/// pause, watch, resume, quit.
public enum LotteryChecks {
    /// Story seconds the machine rolls after start, and after resume: six ticks.
    static let rollingWatch = 0.3
    /// How long the queue gets to empty after a pause before the rolling
    /// counts as unstoppable, in story seconds: thirty ticks.
    static let pauseWatch = 1.5

    public static let suspension = BugText(
        name: "pausing does not stop the rolling",
        expected:
            "at most 1 roll after pause (the one already sleeping) · the queue empty soon after · rolling again after "
            + "resume",
        why:
            "Suspending a queue stops it from *starting* operations, not the one already running: the rolling "
            + "operation keeps going unless it looks at `isSuspended` itself. Once it ends, the queue is empty, so "
            + "resuming has to start a new rolling operation (the button does that when `operationCount` is 0).",
        hints: Hints(
            question:
                "The queue is suspended, yet the digits roll on. What does the running loop look at on each "
                + "tick, and does pausing change it?",
            place: CodePlace("func roll(_ rolling: Operation)", in: "LotteryViewController.swift"),
            api:
                "`isSuspended` only keeps a queue from *starting* operations. The loop must read "
                + "`queue.isSuspended` itself on each tick and end; resuming then starts a new rolling operation, "
                + "as `start()` does when `operationCount` is 0.",
            code: [
                .line("while !queue.isSuspended && !rolling.isCancelled {", in: "LotteryViewController.swift")
            ]))
    public static let mainQueue = BugText(
        name: "the digits are written off the main queue",
        expected: "every roll shown on the main queue · 0 main-queue violations",
        why:
            "The rolling loop runs on the queue's worker thread; the labels are UI and belong to the main queue. "
            + "UIKit's Main Thread Checker would flag every label set from the loop; TableKit counts them as "
            + "main-queue violations.",
        hints: Hints(
            question:
                "Which thread runs `roll(_:)`, and which one may set a label?",
            place: CodePlace("show(nextDigits())", in: "LotteryViewController.swift"),
            api:
                "Roll on the queue's thread, then hand the digits to the main queue to show: "
                + "`OperationQueue.main.addOperation { … }`.",
            code: [
                .lines(
                    from: "let digits = nextDigits()",
                    through: "OperationQueue.main.addOperation { self.show(digits) }", in: "LotteryViewController.swift"
                )
            ]))

    public static func check(narrate: ((String) -> Void)? = nil, machine: any ScreenController.Type) async
        -> [CheckResult]
    {
        let outcome = await ExclusiveRun.run { instruments -> Result<Session, ScreenSession.MissingOutlet> in
            // The session's clock ends with it, before the gate lets the next run in.
            let clock = SleepClock()
            defer { clock.shutDown() }
            let trace = OperationTrace(clock: clock)
            switch await MainActor.run(body: { ScreenSession.make(machine, seed: 7, trace: trace) }) {
            case .failure(let missing):
                return .failure(missing)
            case .success(let machine):
                var session = await play(machine)
                await machine.end()
                // Counted once the queue is empty, as the label writes are: a loop that ignores the pause rolls on.
                session.rolls = machine.rolls.count
                let labelWritesOffMain = instruments.mainQueueViolations.filter { $0.hasPrefix("Label.text") }.count
                session.rollsShownOffMainQueue = labelWritesOffMain / max(machine.outlets.labels.count, 1)
                session.violations = instruments.mainQueueViolations.count
                return .success(session)
            }
        }
        let session: Session
        switch outcome {
        case .success(let played):
            session = played
        case .failure(let missing):
            narrate?("the machine cannot be played: \(missing)")
            return [
                suspension.result(passed: false, measured: "not played: \(missing)"),
                mainQueue.result(passed: false, measured: "not played: \(missing)"),
            ]
        }
        narrate?(
            "start: \(session.rolled ? "rolling" : "the digits never rolled") · pause: "
                + "\(counted(session.rollsAfterPause, "roll")) after it, "
                + "\(counted(session.operationsAfterPause, "operation")) left in the queue "
                + "\(String(format: "%g", pauseWatch)) story seconds later · resume: \(session.rolledAgain ? "rolling again" : "no new rolls")"
        )
        return [
            pause(session),
            mainQueue.result(
                passed: session.rolls > 0 && session.rollsShownOffMainQueue == 0 && session.violations == 0,
                measured: "\(session.rollsShownOffMainQueue) of \(session.rolls) rolls shown off the main queue · "
                    + "\(session.violations) main-queue violations"),
        ]
    }

    /// The pause's verdict, titled by what went wrong: the digits rolling on
    /// is the bug's own shape; a loop that stopped rolling but stayed in the
    /// queue, or a machine that never rolls again, is said as measured.
    static func pause(_ session: Session) -> CheckResult {
        let seconds = String(format: "%g", pauseWatch)
        guard session.rolled else {
            return suspension.result(passed: false, measured: "the digits never rolled after start")
        }
        let measured =
            "\(counted(session.rollsAfterPause, "roll")) after pause · "
            + "\(counted(session.operationsAfterPause, "operation")) still in the queue \(seconds) story seconds "
            + "later · rolling again after resume: " + (session.rolledAgain ? "yes" : "no")
        if session.rollsAfterPause > 1 { return suspension.result(passed: false, measured: measured) }
        if session.operationsAfterPause > 0 {
            return CheckResult(
                bug: suspension.name, passed: false, measured: measured, expected: suspension.expected,
                hint:
                    "The digits stopped at the pause, but the rolling operation was still in the queue \(seconds) "
                    + "story seconds later: it waits for the resume, holding a worker thread, instead of ending. What "
                    + "should the loop do once it sees the pause? (End: the button starts a new rolling operation "
                    + "on resume when the queue is empty.)",
                isSafeguard: false, shape: "the rolling operation stays in the queue while paused")
        }
        guard session.rolledAgain else {
            return CheckResult(
                bug: suspension.name, passed: false, measured: measured, expected: suspension.expected,
                hint:
                    "The pause stopped the rolling and emptied the queue, and nothing rolled after the resume. What "
                    + "does the button do on resume when the queue is empty?",
                isSafeguard: false, shape: "the digits do not roll again after resume")
        }
        return suspension.result(passed: true, measured: measured)
    }

    struct Session {
        var rolled = false
        var rollsAfterPause = 0
        var operationsAfterPause = 0
        var rolledAgain = false
        var rolls = 0
        var rollsShownOffMainQueue = 0
        var violations = 0
    }

    static func play(_ machine: ScreenSession) async -> Session {
        var session = Session()
        func press() async -> Double { await MainActor.run { machine.press() } }
        func rolls(after ms: Double) -> Int { machine.rolls.filter { $0.ms > ms }.count }

        let clock = machine.trace.clock
        _ = await press()
        await clock.wait(seconds: rollingWatch)
        session.rolled = machine.rolls.count >= 5
        if session.rolled {
            let pausedAt = await press()
            await machine.waitUntilEmpty(atMost: pauseWatch)
            await mainQueueCaughtUp()
            session.rollsAfterPause = rolls(after: pausedAt)
            session.operationsAfterPause = machine.operationCount
            let resumedAt = await press()
            await clock.wait(seconds: rollingWatch)
            session.rolledAgain = rolls(after: resumedAt) >= 3
        }
        return session
    }

    /// Returns once the main queue has run everything queued on it before now.
    static func mainQueueCaughtUp() async {
        await withCheckedContinuation { done in OperationQueue.main.addOperation { done.resume() } }
    }
}
