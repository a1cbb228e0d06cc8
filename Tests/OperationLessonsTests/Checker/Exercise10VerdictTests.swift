import Foundation
import LessonChecks
import LessonKit
import Testing

/// Exercise 10's verdicts say one thing at a time: an operation that says it
/// finished is ✓ on finishing even when a queue stalls on its silence (that
/// stall is the announcement's), and an operation whose `start()` handles a
/// cancel but announces before the change is pointed at the announcement.
@Suite struct Exercise10VerdictTests {
    static func check(_ fault: FaultyDownloadOperation.Fault) async -> [CheckResult] {
        await AsyncOperationChecks.check {
            FaultyDownloadOperation(fault: fault, url: $0, network: $1, progress: $2, completion: $3)
        }
    }

    @Test func aQueueStalledBySilenceIsTheAnnouncementsVerdict() async throws {
        let results = await Self.check(.silent)
        let finishes = try #require(ExerciseProof.result(results, AsyncOperationChecks.finishes))
        #expect(finishes.passed)
        #expect(finishes.measured == "started by hand: 4 of 4 finished", "no stall beside a ✓")
        let announces = try #require(ExerciseProof.result(results, AsyncOperationChecks.announces))
        #expect(!announces.passed)
        #expect(announces.measured.hasSuffix("(2 of 4 started, 2 at once, never the rest: stalled)"))
    }

    /// An operation that never finishes has nothing to announce: the announcement is not measured apart from
    /// the finishing, never a ✗ of its own ("✗ not fixed … isFinished never turned true: nothing to announce",
    /// on exercise 10's untouched start, before).
    @Test func nothingFinishedIsNoAnnouncementVerdict() async throws {
        let results = await Self.check(.neverFinishes)
        let finishes = try #require(ExerciseProof.result(results, AsyncOperationChecks.finishes))
        #expect(!finishes.passed && finishes.wasMeasured)
        let announces = try #require(ExerciseProof.result(results, AsyncOperationChecks.announces))
        #expect(!announces.passed && !announces.wasMeasured)
        #expect(announces.measured.hasPrefix("not measured apart from \(AsyncOperationChecks.finishes.name): "))
    }

    @Test func aCancelFinishedUnheardPointsAtTheAnnouncement() async throws {
        let results = await Self.check(.announcesBeforeTheChange)
        let cancelled = try #require(ExerciseProof.result(results, AsyncOperationChecks.cancelledBeforeStart))
        #expect(!cancelled.passed)
        #expect(cancelled.measured == "started by hand: finished unheard · in a queue: finished")
        #expect(cancelled.hint == AsyncOperationChecks.announces.hint)
        #expect(cancelled.diagnosis?.contains("but its completion block never ran") == true)
    }

    /// The checks wait for the story, not for the wall clock: an operation
    /// that is right but slow to say it finished (a loaded machine, a
    /// learner's slow code) is judged right. (With a wall-time limit of 1 s,
    /// four of them, 0.3 s each on one delivery queue, were judged never to finish.)
    @Test func aSlowMachineChangesNoVerdict() async {
        let results = await Self.check(.slowToSayFinished)
        ExerciseProof.expectSolved(results)
    }

    /// A story cut short by the clock's hang guard is no verdict: each check
    /// says it was not measured, and what kept the clock, rather than "0 of 4
    /// finished" (what a right operation got on a machine loaded enough for
    /// the guard to fire). Held until the test ends, the operations keep the
    /// clock for certain; the guard is made short so that it fires at once.
    @Test func aStoryTheClockGaveUpOnIsNoVerdict() async {
        let gate = Gate()
        defer { gate.open() }
        let results = await AsyncOperationChecks.check(hangSeconds: 0.1) { _, _, _, _ in HeldOperation(gate: gate) }
        #expect(results.count == 3)
        for result in results {
            #expect(!result.passed && !result.wasMeasured, "\(result.bug): \(result.measured)")
            // Held at a gate, they run nothing: blocked, or run out by the tests playing beside it in this process.
            #expect(result.measured.hasPrefix("not measured: the story never went quiet ("), "\(result.measured)")
            #expect(result.measured.contains(" seconds of "), "\(result.measured)")
            #expect(result.measured.contains(" without the story moving on: Dispatch: "), "\(result.measured)")
        }
    }

    @Test func theControllerBugSaysLinuxKeepsACompletionBlock() throws {
        let bug = try #require(KnownBug.named("the controller is never freed while its downloads run"))
        #expect(bug.text.hint.contains("on Linux its `completionBlock` too, for good: it is never cleared"))
    }
}

/// Closed until `open`: a wait no story clock sees (not Dispatch's semaphore, which the harness hands out).
final class Gate: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false

    func wait() {
        condition.withLock { while !isOpen { condition.wait() } }
    }

    func open() {
        condition.withLock {
            isOpen = true
            condition.broadcast()
        }
    }
}

/// An operation whose `start()` waits at a gate, outside the network and the clock.
final class HeldOperation: Operation, @unchecked Sendable {
    let gate: Gate

    init(gate: Gate) {
        self.gate = gate
    }

    override var isAsynchronous: Bool { true }
    override func start() { gate.wait() }
}
