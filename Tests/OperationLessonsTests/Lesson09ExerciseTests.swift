import Foundation
import LessonChecks
import LessonKit
import Testing

@preconcurrency @testable import Exercise09Start
@preconcurrency @testable import Lesson09LotteryMachine

/// Exercise 9, proven: its checks fail on the starting code (a loop that
/// neither looks at `isSuspended` nor goes back to the main queue), each
/// check fails on the step's variant that has only its bug, and both pass on
/// step 9's fixed loop.
@Suite struct Lesson09ExerciseTests {
    static func check(_ variant: RollingVariant) async -> [CheckResult] {
        await LotteryChecks.check { tick, seed, trace in
            Lesson09LotteryMachine.LotteryViewController(variant: variant, tick: tick, seed: seed, trace: trace)
        }
    }

    @Test func theStartingCodeHasBothBugs() async {
        let results = await LotteryChecks.check { tick, seed, trace in
            Exercise09Start.LotteryViewController(tick: tick, seed: seed, trace: trace)
        }
        ExerciseProof.expectEveryBugPresent(results)
    }

    @Test func step9SolvesIt() async {
        ExerciseProof.expectSolved(await Self.check(.fixed))
    }

    @Test func eachCheckCatchesTheVariantWithItsBug() async {
        let noCheck = await Self.check(.noCheck)
        #expect(noCheck.map(\.passed) == [false, true], "\(noCheck)")
        let offMain = await Self.check(.offMain)
        #expect(offMain.map(\.passed) == [true, false], "\(offMain)")
    }
}
