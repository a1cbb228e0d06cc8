import Foundation
import Testing

@testable import LessonKit

/// The hang guard measures the run, not the machine: an endless loop runs out
/// its processor time, a deadlock its wall time with every thread blocked, and
/// a run the machine is too busy to give a processor to is no hang however long
/// it takes. Played on a double of what the guard reads, so that "slow" and
/// "loaded" are exact and cost no wall time.
@Suite struct HangGuardTests {
    static let limit = Duration.seconds(30)

    /// Looks at a run every `look` of wall time, in each of which it runs `ran` and no other thread can run,
    /// until the guard stops it (or two minutes pass): how much wall time that took, and what the guard said.
    static func stopped(lookingEvery look: Duration, running ran: Duration, _ reason: String)
        -> (after: Duration, verdict: String?)
    {
        let machine = MachineDouble()
        var hangGuard = HangGuard(limit: limit, meter: machine.meter)
        var looked = Duration.zero
        hangGuard.note(reason)
        while !hangGuard.isPastLimit && looked < .seconds(120) {
            machine.pass(wall: look, ran: ran, anotherThreadCanRun: false)
            looked += look
            hangGuard.note(reason)
        }
        return (looked, hangGuard.verdict)
    }

    /// An operation or a main-queue block that never returns: the process runs a processor's worth of time
    /// for every second of wall time, and is stopped once it has run the limit.
    @Test func anEndlessLoopIsStoppedAfterItsProcessorTime() {
        let (after, verdict) = Self.stopped(lookingEvery: .milliseconds(50), running: .milliseconds(50), "1 block running")
        #expect(after == Self.limit, "stopped after \(after) of looks")
        #expect(verdict == "the app ran for 30.0 seconds of processor time without the story moving on: 1 block running")
    }

    /// Threads that wait on each other for good: nothing runs and nothing could, and the wall time says so.
    /// (The harness's own looks run a little: far less than a tenth of a processor.)
    @Test func aDeadlockIsStoppedAfterItsWallTimeBlocked() {
        let (after, verdict) = Self.stopped(
            lookingEvery: .milliseconds(100), running: .microseconds(200), "2 operations running")
        #expect(after == Self.limit, "stopped after \(after) of looks")
        #expect(
            verdict == "every thread of the app was blocked for 30.0 seconds of wall time without the story moving on: "
                + "2 operations running")
    }

    /// A run on a machine too loaded to give it a processor: ten minutes of wall time, in which its threads
    /// wait for one and get a hundredth of it, is no hang. (The guard of wall time alone stopped it at 30 s:
    /// step 8's priority race at a load of 21-36.)
    @Test func aRunStarvedByLoadIsNotStopped() {
        let machine = MachineDouble()
        var hangGuard = HangGuard(limit: Self.limit, meter: machine.meter)
        for _ in 0..<(10 * 60 * 20) {
            hangGuard.note("2 operations running")
            machine.pass(wall: .milliseconds(50), ran: .microseconds(500), anotherThreadCanRun: true)
        }
        #expect(!hangGuard.isPastLimit && hangGuard.verdict == nil)
    }

    /// Only the wall time in which nothing could run counts as blocked: a stretch at whose end a thread waits
    /// for a processor, or in which a tenth of one ran, is the machine's or the run's, never a deadlock's.
    @Test func onlyStretchesWithNothingRunnableCountAsBlocked() {
        let machine = MachineDouble()
        var hangGuard = HangGuard(limit: Self.limit, meter: machine.meter)
        hangGuard.note("1 block running")
        for look in 1...(3 * 20 * 20) {
            switch look % 3 {
            case 0: machine.pass(wall: .milliseconds(50), ran: .zero, anotherThreadCanRun: true)
            case 1: machine.pass(wall: .milliseconds(50), ran: .milliseconds(10), anotherThreadCanRun: false)
            default: machine.pass(wall: .milliseconds(50), ran: .zero, anotherThreadCanRun: false)
            }
            hangGuard.note("1 block running")
        }
        // 60 s of wall time, 20 s of it blocked, 4 s run: no hang yet; 30 s more of the same make 30 s blocked.
        #expect(!hangGuard.isPastLimit, "\(hangGuard.verdict ?? "")")
        for look in 1...(3 * 10 * 20) {
            machine.pass(
                wall: .milliseconds(50), ran: look % 3 == 1 ? .milliseconds(10) : .zero,
                anotherThreadCanRun: look % 3 == 0)
            hangGuard.note("1 block running")
        }
        #expect(hangGuard.verdict?.hasPrefix("every thread of the app was blocked for 30.0 seconds") == true)
    }

    /// The story moving on ends the stretch: what came before it counts no more.
    @Test func theStoryMovingOnStartsAgain() {
        let machine = MachineDouble()
        var hangGuard = HangGuard(limit: Self.limit, meter: machine.meter)
        for _ in 0..<3 {
            for _ in 0..<(20 * 20) {
                hangGuard.note("1 block running")
                machine.pass(wall: .milliseconds(50), ran: .milliseconds(50), anotherThreadCanRun: false)
            }
            hangGuard.clear()
        }
        #expect(!hangGuard.isPastLimit && hangGuard.reason == nil)
    }
}

/// What the hang guard reads, set by the test: this process's processor time, its awake wall time, and whether
/// another of its threads could run.
final class MachineDouble: @unchecked Sendable {
    private let lock = NSLock()
    private let start = ContinuousClock.now
    private var processor = Duration.zero
    private var awake = Duration.zero
    private var canRun = false

    var meter: HangGuard.Meter {
        HangGuard.Meter(
            processorTime: { self.lock.withLock { self.processor } },
            awakeTime: { self.lock.withLock { self.start + self.awake } },
            anotherThreadCanRun: { self.lock.withLock { self.canRun } })
    }

    /// `wall` passes, in which the process runs `ran`; at its end another thread can run or not.
    func pass(wall: Duration, ran: Duration, anotherThreadCanRun: Bool) {
        lock.withLock {
            awake += wall
            processor += ran
            canRun = anotherThreadCanRun
        }
    }
}

/// The guard on a real story clock (`SleepClock`, the operation stories' and exercise 10's): a learner's endless
/// loop, on a worker or on the main queue, and a deadlock are each still stopped, saying what hung and on what.
@Suite struct HangGuardOnTheClockTests {
    /// The story wants time (it waits a second of it) while `operation` keeps it still, on `queue`; the
    /// guard's limit 0.3 s. What the clock said when it gave up. The wait begins once `started` is set (by the
    /// operation, as it runs): the guard counts this process's processor time, the tests' beside it too, and
    /// under load it once gave up while the operation's thread had yet to start ("0 running, 1 ready to start").
    static func stuck(
        _ operation: Operation, on queue: OperationQueue, started: Latch? = nil, until release: () -> Void
    ) async -> String? {
        await ExclusiveRun.run { _ in
            let clock = SleepClock(hangSeconds: 0.3)
            defer { clock.shutDown() }
            clock.watch(queue)
            clock.storyTurn { queue.addOperation(operation) }
            if let started { await Rig.onThread { started.wait() } }
            let moved = await clock.wait(atMost: 1)
            release()
            await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
                Thread.detachNewThread {
                    operation.waitUntilFinished()
                    finished.resume()
                }
            }
            return moved ? "the story moved on" : clock.stuck
        }
    }

    @Test func anEndlessLoopOnAWorkerRunsOutItsProcessorTime() async throws {
        let queue = OperationQueue()
        queue.name = "spinning queue"
        let (started, stop) = (Latch(), Latch())
        let spinning = BlockOperation {
            started.set()
            while !stop.isSet {}
        }
        let stuck = try #require(await Self.stuck(spinning, on: queue, started: started, until: stop.set))
        #expect(
            stuck == "the app ran for 0.3 seconds of processor time without the story moving on: "
                + "spinning queue: 1 running, 0 ready to start")
    }

    @Test func anEndlessLoopOnTheMainQueueRunsOutItsProcessorTime() async throws {
        let stop = Latch()
        let stuck = try #require(
            await Self.stuck(BlockOperation { while !stop.isSet {} }, on: .main, until: stop.set))
        #expect(stuck.hasPrefix("the app ran for 0.3 seconds of processor time without the story moving on: "), "\(stuck)")
        // Running, or ready to start as corelibs reads an operation of the main queue before it marks it executing.
        #expect(stuck.contains("without the story moving on: NSOperationQueue Main Queue: "), "\(stuck)")
    }

    /// Two operations that each wait for the other. Whether the guard finds it by the wall time blocked or by
    /// the processor time of the tests running beside it in this process, it stops the story and names them.
    @Test func aDeadlockIsStoppedNamingWhatWaits() async throws {
        let queue = OperationQueue()
        queue.name = "deadlocked queue"
        let (first, second, started) = (Latch(), Latch(), Latch())
        let pair = BlockOperation()
        pair.addExecutionBlock {
            started.set()
            second.wait()
            first.set()
        }
        pair.addExecutionBlock {
            started.set()
            first.wait()
            second.set()
        }
        let stuck = try #require(
            await Self.stuck(pair, on: queue, started: started) {
                first.set()
                second.set()
            })
        #expect(
            stuck.hasPrefix("every thread of the app was blocked for 0.3 seconds of wall time")
                || stuck.hasPrefix("the app ran for 0.3 seconds of processor time"), "\(stuck)")
        #expect(stuck.hasSuffix("deadlocked queue: 1 running, 0 ready to start"), "\(stuck)")
    }
}
