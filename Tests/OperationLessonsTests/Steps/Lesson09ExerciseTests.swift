import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import Testing

@preconcurrency @testable import Exercise09Start
@preconcurrency @testable import Lesson09LotteryMachine

/// Exercise 9, proven: its checks fail on the starting code (a loop that
/// neither looks at `isSuspended` nor goes back to the main queue), each
/// check fails on the step's variant that has only its bug, and both pass on
/// step 9's fixed loop.
@Suite struct Lesson09ExerciseTests {
    @Test func theStartingCodeHasBothBugs() async {
        let results = await LotteryChecks.check(machine: Exercise09Start.LotteryViewController.self)
        ExerciseProof.expectEveryBugPresent(results)
    }

    @Test func step9SolvesIt() async {
        ExerciseProof.expectSolved(
            await LotteryChecks.check(machine: Lesson09LotteryMachine.LotteryViewController.self))
    }

    @Test func eachCheckCatchesTheVariantWithItsBug() async {
        let noCheck = await LotteryChecks.check(machine: NoCheckLotteryViewController.self)
        #expect(noCheck.map(\.passed) == [false, true], "\(noCheck)")
        let offMain = await LotteryChecks.check(machine: OffMainLotteryViewController.self)
        #expect(offMain.map(\.passed) == [true, false], "\(offMain)")
    }
}

/// A screen the harness cannot play: it has a queue, but no button to press.
final class MachineWithoutAButton: ScreenController {
    let queue = OperationQueue()

    init(environment: ScreenEnvironment) {}
}

@Suite struct LotteryChecksBadInputTests {
    @Test func aMachineWithoutAButtonIsNotPlayedAndTheCheckSaysWhy() async {
        let results = await LotteryChecks.check(machine: MachineWithoutAButton.self)
        #expect(results.map(\.passed) == [false, false])
        #expect(results.first?.measured == "not played: MachineWithoutAButton has 0 buttons; the harness presses one")
    }
}
