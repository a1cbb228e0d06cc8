import Foundation
import LessonKit
import Testing

@preconcurrency @testable import Lesson09LotteryMachine

#if canImport(Glibc)
    import Glibc
#endif

/// Step 9: what pausing the queue stops, what it does not, and where the
/// digits are written. Every wait here is for a condition, bounded.
@Suite struct Lesson09Tests {
    /// 10 ms between rolls (the tutorial's 50 ms at 5×): quick, and still
    /// long next to a press.
    static let tick = 0.01

    /// A machine made on the main queue (it is a view controller), played
    /// alone in the process, quit at the end whatever happened.
    static func withMachine<Result>(
        _ variant: RollingVariant, _ body: (LotteryViewController) async -> Result
    ) async -> (result: Result, violations: Int) {
        await ExclusiveRun.run { instruments in
            let machine = await MainActor.run {
                LotteryViewController(variant: variant, tick: tick, seed: 7, trace: OperationTrace())
            }
            let result = await body(machine)
            await machine.quit()
            return (result, instruments.mainQueueViolations.count)
        }
    }

    /// Presses the button on the main queue; returns when it was pressed.
    @discardableResult
    static func press(_ machine: LotteryViewController) async -> Double {
        await MainActor.run {
            let ms = machine.trace.now()
            machine.buttonTapped()
            return ms
        }
    }

    /// Rolls made after `ms` (a roll already on its way to the main queue at `ms` is not one).
    static func rolls(_ machine: LotteryViewController, after ms: Double) -> Int {
        machine.digitUpdates.filter { $0.rolledMs > ms }.count
    }

    /// Returns once the main queue has run everything queued on it before now.
    static func mainQueueCaughtUp() async {
        await withCheckedContinuation { done in OperationQueue.main.addOperation { done.resume() } }
    }

    @Test func afterPauseTheDigitsStopWithinOneTickAndTheQueueEmpties() async {
        let (outcome, _) = await Self.withMachine(.fixed) { machine in
            await Self.press(machine)
            let rolled = await eventually { machine.updateCount >= 5 }
            let pausedAt = await Self.press(machine)
            let emptied = await eventually { machine.queue.operationCount == 0 }
            await Self.mainQueueCaughtUp()
            let shownAtRest = machine.updateCount
            await Self.mainQueueCaughtUp()
            return (rolled, emptied, Self.rolls(machine, after: pausedAt), shownAtRest, machine.updateCount)
        }
        let (rolled, emptied, rollsAfterPause, shownAtRest, shownLater) = outcome
        #expect(rolled)
        #expect(emptied, "the rolling operation ended by itself")
        #expect(rollsAfterPause <= 1, "at most the roll that was already sleeping when the button was pressed")
        #expect(shownLater == shownAtRest)
    }

    @Test func afterResumeTheDigitsChangeAgain() async {
        let (outcome, _) = await Self.withMachine(.fixed) { machine in
            await Self.press(machine)
            _ = await eventually { machine.updateCount >= 3 }
            await Self.press(machine)
            _ = await eventually { machine.queue.operationCount == 0 }
            let resumedAt = await Self.press(machine)
            let title = await MainActor.run { machine.buttonTitle }
            let rollsAgain = await eventually { Self.rolls(machine, after: resumedAt) >= 3 }
            return (title, rollsAgain)
        }
        #expect(outcome.0 == "pause")
        #expect(outcome.1, "resuming started the rolling again")
    }

    @Test func theVariantThatDoesNotCheckKeepsRollingAfterPause() async {
        let (outcome, _) = await Self.withMachine(.noCheck) { machine in
            await Self.press(machine)
            _ = await eventually { machine.updateCount >= 3 }
            let pausedAt = await Self.press(machine)
            let keptRolling = await eventually { Self.rolls(machine, after: pausedAt) >= 5 }
            return (keptRolling, machine.queue.isSuspended, machine.queue.operationCount)
        }
        let (keptRolling, suspended, operationCount) = outcome
        #expect(keptRolling, "suspending the queue did not stop the running operation")
        #expect(suspended)
        #expect(operationCount == 1)
    }

    @Test func theFixedMachineWritesTheDigitsOnlyOnTheMainQueue() async {
        let (updates, violations) = await Self.withMachine(.fixed) { machine in
            await Self.press(machine)
            _ = await eventually { machine.updateCount >= 5 }
            await Self.press(machine)
            _ = await eventually { machine.queue.operationCount == 0 }
            await Self.press(machine)
            _ = await eventually { machine.updateCount >= 10 }
            return machine.digitUpdates
        }
        #expect(updates.count >= 10)
        #expect(updates.allSatisfy { $0.onMainQueue })
        #expect(violations == 0)
    }

    @Test func theOffMainVariantIsCaughtByTheMainQueueCheck() async {
        let (updates, violations) = await Self.withMachine(.offMain) { machine in
            await Self.press(machine)
            _ = await eventually { machine.updateCount >= 5 }
            await Self.press(machine)
            _ = await eventually { machine.queue.operationCount == 0 }
            return machine.digitUpdates
        }
        #expect(updates.count >= 5)
        #expect(updates.allSatisfy { !$0.onMainQueue })
        // Three labels set off the main queue per roll.
        #expect(violations == 3 * updates.count)
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

    @Test func theScriptedRunOnATerminalExitsZeroAndLeavesNoRawMode() async throws {
        let run = try await Self.runOnTerminal(
            arguments: ["--json", "--speed", "4", "--script", "start,wait 0.4,pause,wait 0.2,resume,wait 0.4,quit"])
        #expect(run.status == 0)
        #expect(run.restored, "the terminal is back in line mode with echo")
        let measures = run.report?["measures"] as? [String: Double] ?? [:]
        #expect(measures["terminalRestored"] == 1, "the run entered raw mode and put it back itself")
        #expect((measures["rollsAfterPause"] ?? 99) <= 1)
        #expect((measures["rollsAfterResume"] ?? 0) >= 1)
        #expect(run.report?["mainThreadViolations"] as? Int == 0)
    }

    @Test func pressingQQuitsTheKeyboardRunAndRestoresTheTerminal() async throws {
        let run = try await Self.runOnTerminal(
            arguments: [], keys: [(after: "[ start ]", send: " "), (after: "[ pause ]", send: "q")])
        #expect(run.status == 0)
        #expect(run.restored)
        #expect(run.output.contains("rollsAfterPause") == false, "never paused")
        #expect(run.output.contains("presses"))
    }

    @Test func aSignalFromOutsideStillRestoresTheTerminal() async throws {
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
