import Foundation
import LessonChecks
import Testing

/// Exercise 10's checks tried on the blogs' `AsyncOperation` base class
/// (`PortedAsyncOperation.swift`) and on learners' slips on it
/// (`PortedAsyncOperationSlips.swift`), each file read as the learner's only
/// one: its hints name what the file has, else the role.
@Suite(.racyStepInProcess) struct PortedAsyncOperationTests {
    static func check(_ file: String, _ make: AsyncOperationChecks.Make) async -> [CheckResult] {
        await AsyncOperationChecks.check(code: PortedTutorialTests.code(file), make: make)
    }

    static let slips = "PortedAsyncOperationSlips.swift"

    @Test func theBlogsBaseClassSolvesIt() async {
        let results = await Self.check("PortedAsyncOperation.swift") {
            BlogDownloadOperation(url: $0, network: $1, progress: $2, completion: $3)
        }
        ExerciseProof.expectSolved(results)
    }

    /// Flags in stored `Bool`s, set with nothing said: heard by nobody. The
    /// file has no `complete(with:)`: the hint names the role.
    @Test func flagsSetWithoutAWordAreToldWhereTheOperationFinishes() async throws {
        let results = await Self.check(Self.slips) {
            QuietDownloadOperation(DownloadRequest(url: $0, network: $1, progress: $2, completion: $3))
        }
        let announces = try #require(ExerciseProof.result(results, AsyncOperationChecks.announces))
        #expect(!announces.passed && announces.measured.hasPrefix("started by hand: 4 said finished, 0 heard"))
        #expect(announces.hint.hasSuffix("Look at where your operation's download ends."))
        #expect(!announces.hint.contains("ImageDownloadOperation.swift"))
        let cancelled = try #require(ExerciseProof.result(results, AsyncOperationChecks.cancelledBeforeStart))
        #expect(cancelled.hint == announces.hint)
    }

    /// A `start()` that returns when cancelled, without finishing: told of
    /// its own `start()`, in its own file (it is not `public`).
    @Test func aStartThatLeavesWhenCancelledIsToldOfItsStart() async throws {
        let results = await Self.check(Self.slips) {
            LeavingDownloadOperation(DownloadRequest(url: $0, network: $1, progress: $2, completion: $3))
        }
        let cancelled = try #require(ExerciseProof.result(results, AsyncOperationChecks.cancelledBeforeStart))
        #expect(!cancelled.passed && cancelled.measured == "started by hand: never finished · in a queue: never finished")
        #expect(cancelled.hint.hasSuffix("Look at `override func start()` in \(Self.slips)."))
        #expect(results.filter { !$0.passed }.map(\.bug) == [AsyncOperationChecks.cancelledBeforeStart.name])
    }

    /// A subclass that drops a cancelled download's answer, and with it its
    /// `finish()`: an operation cancelled while it downloads never finishes,
    /// and a queue would keep its slot for ever. Measured, not ✓.
    @Test func anOperationCancelledWhileItDownloadsMustFinish() async throws {
        let results = await Self.check(Self.slips) {
            DroppingDownloadOperation(url: $0, network: $1, progress: $2, completion: $3)
        }
        let finishes = try #require(ExerciseProof.result(results, AsyncOperationChecks.finishes))
        #expect(!finishes.passed)
        #expect(
            finishes.measured
                == "started by hand: 4 of 4 finished · cancelled while it downloads: never finished, its completion "
                + "handler never called")
        #expect(finishes.diagnosis?.hasSuffix("the one cancelled while it downloaded never said isFinished") == true)
        #expect(finishes.hint.hasPrefix("Your operation was cancelled while it downloaded, and it never finished"))
        #expect(finishes.hint.hasSuffix("Look at where your operation's download ends."))
        #expect(results.filter { !$0.passed }.map(\.bug) == [AsyncOperationChecks.finishes.name])
    }
}
