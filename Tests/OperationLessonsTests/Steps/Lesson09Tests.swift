import Foundation
import LessonKit
import LessonSupport
import Synchronization
import TableKit
import Testing

@preconcurrency @testable import Lesson09LotteryMachine
@testable import LotteryMachineStory

#if canImport(Glibc)
    import Glibc
#endif

/// Step 9: what pausing the queue stops, what it does not, and where the
/// digits are written. The machine is watched as the lottery run watches it:
/// its rolls from the digits it draws (timed on the thread that draws them),
/// its label writes and where they happened from TableKit's instruments.
/// Everything plays on a story clock of its own, so the counts are exact: a
/// roll every 50 story ms, and the roll due at the instant of a press comes
/// before it.
@Suite struct Lesson09Tests {
    /// A machine made on the main queue (it is a view controller), played
    /// alone in the process, emptied at the end whatever happened; nil (and
    /// an issue) if it cannot be played.
    static func withMachine<Result: Sendable>(
        _ machine: any ScreenController.Type, _ body: (ScreenSession, Instruments) async -> Result
    ) async -> (result: Result, violations: Int)? {
        await ExclusiveRun.run { instruments -> (result: Result, violations: Int)? in
            let clock = SleepClock()
            defer { clock.shutDown() }
            let made = await MainActor.run { ScreenSession.make(machine, seed: 7, trace: OperationTrace(clock: clock)) }
            guard case .success(let session) = made else {
                Issue.record("cannot play \(machine): \(made)")
                return nil
            }
            let result = await body(session, instruments)
            await session.end()
            return (result, instruments.mainQueueViolations.count)
        }
    }

    /// Presses the button on the main queue; returns when it was pressed,
    /// and how many UI touches there had been by then (the press's own included).
    @discardableResult
    static func press(_ session: ScreenSession, _ instruments: Instruments) async -> (ms: Double, touches: Int) {
        await MainActor.run {
            let ms = session.press()
            return (ms, instruments.uiTouches)
        }
    }

    /// Rolls made after `ms` (a roll already on its way to the main queue at `ms` is not one).
    static func rolls(_ session: ScreenSession, after ms: Double) -> Int {
        session.rolls.filter { $0.ms > ms }.count
    }

    /// Returns once the main queue has run everything queued on it before now.
    static func mainQueueCaughtUp() async {
        await withCheckedContinuation { done in OperationQueue.main.addOperation { done.resume() } }
    }

    @Test func theStepListsItsTwoBuggyLoopsAsVariants() {
        let variants = LotteryViewController.variants
        #expect(variants.map(\.flag) == ["no-check", "off-main"])
        #expect(variants[0].controller is NoCheckLotteryViewController.Type)
        #expect(variants[1].controller is OffMainLotteryViewController.Type)
    }

    /// Step 9's machine, and one that keeps its labels, button and queue one
    /// level down in a helper object and declares nothing: the same, exact.
    @Test(arguments: [LotteryViewController.self, HelperObjectMachine.self] as [any ScreenController.Type])
    func afterPauseTheDigitsStopWithinOneTickAndTheQueueEmpties(_ machine: any ScreenController.Type) async {
        let played = await Self.withMachine(machine) { session, instruments in
            await Self.press(session, instruments)
            await session.trace.clock.wait(seconds: 0.25)
            let rolled = session.rolls.count
            let pausedAt = await Self.press(session, instruments).ms
            let emptied = await session.waitUntilEmpty(atMost: 1)
            await Self.mainQueueCaughtUp()
            let shownAtRest = instruments.uiTouches
            await Self.mainQueueCaughtUp()
            return (
                session.outlets.labels.count, rolled, emptied, Self.rolls(session, after: pausedAt), shownAtRest,
                instruments.uiTouches
            )
        }
        guard let (labels, rolled, emptied, rollsAfterPause, shownAtRest, shownLater) = played?.result else { return }
        #expect(labels == 3)
        #expect(rolled == 5)
        #expect(emptied, "the rolling operation ended by itself")
        #expect(rollsAfterPause == 1, "the roll that was already sleeping when the button was pressed")
        #expect(shownLater == shownAtRest, "no label was written once the queue was empty")
    }

    @Test func afterResumeTheDigitsChangeAgain() async {
        let played = await Self.withMachine(LotteryViewController.self) { session, instruments in
            await Self.press(session, instruments)
            await session.trace.clock.wait(seconds: 0.15)
            await Self.press(session, instruments)
            await session.waitUntilEmpty(atMost: 1)
            let resumedAt = await Self.press(session, instruments).ms
            let title = await MainActor.run { session.button.title }
            await session.trace.clock.wait(seconds: 0.15)
            return (title, Self.rolls(session, after: resumedAt))
        }
        #expect(played?.result.0 == "pause")
        #expect(played?.result.1 == 3, "resuming started the rolling again: a roll every 50 ms")
    }

    @Test func theVariantThatDoesNotCheckKeepsRollingAfterPause() async {
        let played = await Self.withMachine(NoCheckLotteryViewController.self) { session, instruments in
            await Self.press(session, instruments)
            await session.trace.clock.wait(seconds: 0.15)
            let pausedAt = await Self.press(session, instruments).ms
            await session.trace.clock.wait(seconds: 0.25)
            return (Self.rolls(session, after: pausedAt), session.queue?.isSuspended == true, session.operationCount)
        }
        guard let (keptRolling, suspended, operationCount) = played?.result else { return }
        #expect(keptRolling == 5, "suspending the queue did not stop the running operation")
        #expect(suspended)
        #expect(operationCount == 1)
    }

    /// Every roll is shown, three labels each, and every label write is on the
    /// main queue. Counted from the start press, inside the same main-queue
    /// turn, so no write can fall between the press and the count; to the
    /// pause, once the queue is empty and the main queue has caught up, less
    /// the pause press's own two touches (the tap and the new title).
    @Test func theFixedMachineWritesTheDigitsOnlyOnTheMainQueue() async {
        let played = await Self.withMachine(LotteryViewController.self) { session, instruments in
            let started = await Self.press(session, instruments).touches
            await session.trace.clock.wait(seconds: 0.5)
            await Self.press(session, instruments)
            await session.waitUntilEmpty(atMost: 1)
            await Self.mainQueueCaughtUp()
            return (session.rolls.count, instruments.uiTouches - started - 2)
        }
        guard let ((rolls, labelWrites), violations) = played else { return }
        #expect(rolls == 11, "ten before the pause, and the one already sleeping")
        #expect(labelWrites == 3 * rolls, "every roll shown on its three labels")
        #expect(violations == 0)
    }

    @Test func theOffMainVariantIsCaughtByTheMainQueueCheck() async {
        let played = await Self.withMachine(OffMainLotteryViewController.self) { session, instruments in
            await Self.press(session, instruments)
            await session.trace.clock.wait(seconds: 0.25)
            await Self.press(session, instruments)
            await session.waitUntilEmpty(atMost: 1)
            return session.rolls.count
        }
        guard let (rolls, violations) = played else { return }
        #expect(rolls == 6)
        // Three labels set off the main queue per roll.
        #expect(violations == 3 * rolls)
    }

    // MARK: the script

    @Test func theStandardScriptParses() throws {
        let script = try LotteryScript(LotteryScript.standard)
        #expect(
            script.steps == [
                .press(expecting: "start"), .wait(1), .press(expecting: "pause"), .wait(0.5),
                .press(expecting: "resume"), .wait(1), .quit,
            ])
        #expect(try LotteryScript("start,wait 0.2").steps.last == .quit)
    }

    @Test(arguments: ["start,start", "pause", "start,wait x", "start,wait -1", "jump", "quit,start"])
    func aScriptThatCannotBePlayedIsRefused(text: String) {
        #expect(throws: UsageError.self) { try LotteryScript(text) }
    }

    // MARK: the terminal

    @Test(.onATerminal) func theScriptedRunOnATerminalExitsZeroAndLeavesNoRawMode() async throws {
        let run = try await Self.runOnTerminal(
            arguments: ["--json", "--speed", "4", "--script", "start,wait 0.4,pause,wait 0.2,resume,wait 0.4,quit"])
        #expect(run.status == 0)
        #expect(run.restored, "the terminal is back in line mode with echo")
        let measures = run.report?["measures"] as? [String: Double] ?? [:]
        #expect(measures["terminalRestored"] == 1, "the run entered raw mode and put it back itself")
        // Paced on a terminal, and still exact: story time, not the wall's.
        #expect(measures["rollsAfterPause"] == 1)
        #expect(measures["rollsAfterResume"] == 8)
        #expect(run.report?["mainThreadViolations"] as? Int == 0)
    }

    @Test(.onATerminal) func pressingQQuitsTheKeyboardRunAndRestoresTheTerminal() async throws {
        let run = try await Self.runOnTerminal(
            arguments: [], keys: [(after: "[ start ]", send: " "), (after: "[ pause ]", send: "q")])
        #expect(run.status == 0)
        #expect(run.restored)
        #expect(run.output.contains("After a pause") == false, "never paused")
        #expect(run.output.contains("The button was pressed 1 time."))
    }

    @Test(.onATerminal)
    func aSignalFromOutsideStillRestoresTheTerminal() async throws {
        let run = try await Self.runOnTerminal(arguments: [], keys: [(after: "[ start ]", send: nil)])
        #expect(run.status == 128 + SIGTERM)
        #expect(run.restored)
    }

    /// Step 9 on a pseudo-terminal (`PseudoTerminal`), typing `keys` once the
    /// screen shows the text each waits for (`send: nil`: send SIGTERM instead).
    static func runOnTerminal(
        arguments: [String], keys: [(after: String, send: String?)] = []
    ) async throws -> PseudoTerminal.Run {
        try await PseudoTerminal.run(
            "Lesson09LotteryMachine", arguments: arguments,
            keys: keys.map { key in
                key.send.map { .type($0, after: key.after) } ?? .signal(SIGTERM, after: key.after)
            })
    }
}

/// Step 9's machine with its parts in a helper object, as a published
/// tutorial keeps its queues in a `PendingOperations` object. (Its labels are
/// written on the main queue only.)
final class HelperObjectMachine: ScreenController, @unchecked Sendable {
    final class Parts: @unchecked Sendable {
        let digits = [Label(), Label(), Label()]
        let button = Button(title: "start")
        let queue = OperationQueue()
    }

    let parts = Parts()
    let clock: AppClock
    let random: RandomSource

    init(environment: ScreenEnvironment) {
        clock = environment.clock
        random = environment.random
        parts.button.addAction { [unowned self] in tapped() }
    }

    func tapped() {
        let queue = parts.queue
        if queue.operationCount > 0 && !queue.isSuspended {
            queue.isSuspended = true
            return
        }
        queue.isSuspended = false
        queue.addOperation { [unowned self] in
            while !queue.isSuspended {
                clock.sleep(forTimeInterval: 0.05)
                var random = self.random
                let digits = parts.digits.map { _ in Int.random(in: 0..<10, using: &random) }
                OperationQueue.main.addOperation {
                    for (label, digit) in zip(self.parts.digits, digits) { label.text = String(digit) }
                }
            }
        }
    }
}
