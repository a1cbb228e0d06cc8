import DispatchSeam
import Foundation
import SlowNetwork
import Testing

@testable import LessonKit

/// The story's end on a `SleepClock` (`waitUntilIdle`): it comes when nothing
/// is left to play, not before (work a delivery handed on, a fetch in
/// flight), and a fetch that can never end is the hang guard's, said loudly.
@Suite struct SleepClockTests {
    /// What a delivery hands to Dispatch is the story's work: the story does
    /// not end while it runs, however long it takes the machine.
    @Test func theStoryEndsOnlyOnceWhatADeliveryHandedOnHasRun() async {
        let (ended, ran, endedAt) = await ExclusiveRun.run { _ in
            let clock = SleepClock()
            defer { clock.shutDown() }
            clock.watchDispatchWork()
            let network = SlowNetwork(conditions: NetworkConditions(), clock: clock)
            let url = URL(string: AppCatalog.bundled().entries[0].icon)!
            let ran = Flag()
            clock.storyTurn {
                _ = network.fetch(url, progress: { _, _ in }) { _ in
                    DispatchQueue.global().async {
                        // Slow work on a loaded machine: wall time the story does not count.
                        Thread.sleep(forTimeInterval: 0.05)
                        ran.set()
                    }
                }
            }
            let ended = await clock.waitUntilIdle()
            return (ended, ran.isSet, clock.now)
        }
        #expect(ended)
        #expect(ran, "the story ended before the work the completion handed on had run")
        let planned = SlowNetwork(conditions: NetworkConditions()).plannedStorySeconds(
            for: AppCatalog.bundled().entries[0].icon)
        #expect(endedAt == .seconds(planned), "it ended at \(endedAt.milliseconds) ms, not when the fetch did")
    }

    /// A clock shut down late, once another run has begun (a check that
    /// shuts its clock down after it left the scenario gate), leaves that run
    /// counted: its work still keeps its story going. (Shut down, the late
    /// clock ended the seam's count of whatever run was on: a step 7 run
    /// played beside exercise 9's checks ended at 2018 frames instead of 516.)
    @Test func aClockShutDownLateLeavesTheNextRunCounted() async {
        let (movedTo, ran) = await ExclusiveRun.run { _ in
            let late = SleepClock()
            late.watchDispatchWork()
            let clock = SleepClock()
            defer { clock.shutDown() }
            clock.watchDispatchWork()
            late.shutDown()
            let ran = Self.startSlowWork(in: clock)
            // Something due, so the story has a next step to take too soon.
            _ = await clock.wait(atMost: 1)
            return (clock.now, ran.isSet)
        }
        #expect(movedTo == .seconds(1))
        #expect(ran, "the story moved on before the run's work was done")
    }

    /// Starts, in a story turn, work that takes the machine a while and no
    /// story time; set once it has run.
    private static func startSlowWork(in clock: SleepClock) -> Flag {
        let ran = Flag()
        clock.storyTurn {
            DispatchQueue.global().async {
                // Slow work on a loaded machine: wall time the story does not count.
                Thread.sleep(forTimeInterval: 0.05)
                ran.set()
            }
        }
        return ran
    }

    /// A story part that asks for the Dispatch work to be counted when the
    /// story already counts it (the tour's late completion blocks) changes
    /// nothing: the work started before still keeps the time still. (Asked
    /// again, the clock began a new count, and the story moved on without
    /// that work.)
    @Test func watchingDispatchWorkAgainLeavesTheWorkStartedBeforeCounted() async {
        let (movedTo, ran) = await ExclusiveRun.run { _ in
            let clock = SleepClock()
            defer { clock.shutDown() }
            clock.watchDispatchWork()
            let ran = Self.startSlowWork(in: clock)
            clock.watchDispatchWork()
            _ = await clock.wait(atMost: 1)
            return (clock.now, ran.isSet)
        }
        #expect(movedTo == .seconds(1))
        #expect(ran, "the story moved on before the work started before the second call was done")
    }

    /// A block of the run that ends before the clock's thread hearing the seam has started (step 8's cancelled
    /// download, on a machine slow to start that thread) is still heard: the clock, which found it running, moves
    /// on once it is done. (That thread took the seam's count of changes as it stood when it started, so the
    /// block's end was never told, and the clock stood still until the hang guard: step 8's `cancel` in 19 of
    /// 300 runs with both cores kept busy.) The thread is held back until the block is done, so the late start
    /// is played exactly.
    @Test func aBlockEndingBeforeTheSeamIsHeardStillLetsTheTimeMoveOn() async {
        let (movedTo, stuck) = await ExclusiveRun.run { _ in
            let (keptStill, finish) = (Latch(), Latch())
            var meter = HangGuard.Meter.host
            let awakeTime = meter.awakeTime
            // The guard reads the time only while something keeps the clock still: here, the block below.
            meter.awakeTime = {
                keptStill.set()
                return awakeTime()
            }
            let hearing = HeldThread()
            let clock = SleepClock(
                pace: nil, hangGuard: HangGuard(limit: .seconds(0.3), meter: meter), startThread: hearing.hold)
            defer { clock.shutDown() }
            clock.watchDispatchWork()
            clock.storyTurn { DispatchQueue.global().async { finish.wait() } }
            Thread.detachNewThread {
                keptStill.wait()
                finish.set()
                Self.waitUntilTheRunsBlocksAreDone()
                hearing.start()
            }
            _ = await clock.wait(atMost: 1)
            return (clock.now, clock.stuck)
        }
        #expect(stuck == nil, "\(stuck ?? "")")
        #expect(movedTo == .seconds(1))
    }

    /// A block woken from a story sleep is busy from that moment: the time waits for what it does next (here, its
    /// next sleep), however long its thread takes to run again. (The seam counts it asleep until its own thread
    /// says otherwise, and the time jumped meanwhile to the story's next step, 10 s.)
    @Test func aBlockWokenFromASleepKeepsTheTimeStillUntilItIsBack() async {
        let woke = await ExclusiveRun.run { _ in
            let clock = SleepClock()
            defer { clock.shutDown() }
            clock.watchDispatchWork()
            let woke = Stamps()
            clock.storyTurn {
                DispatchQueue.global().async {
                    for _ in 1...50 {
                        clock.sleep(seconds: 0.01)
                        woke.append(clock.milliseconds)
                    }
                }
            }
            _ = await clock.wait(atMost: 10)
            return woke.all
        }
        #expect(woke == (1...50).map { Double($0) * 10 }, "woke at \(woke) ms")
    }

    /// Waits, on the seam's signal, until no block of the run is left.
    private static func waitUntilTheRunsBlocksAreDone() {
        while true {
            let generation = seam_generation()
            if seam_count().elsewhere == 0 { return }
            seam_wait_for_change(generation, 1_000_000_000)
        }
    }

    /// A queue that never lets go of an operation that says it is finished
    /// (it never announced it) keeps the time still, waited for on the
    /// seam's signal and never by spinning, until the hang guard ends the
    /// story, naming the queue.
    @Test func aQueueThatNeverLetsGoIsTheHangGuardsNamingTheQueue() async {
        let (emptied, stuck) = await ExclusiveRun.run { _ in
            let clock = SleepClock(hangSeconds: 0.3)
            defer { clock.shutDown() }
            clock.watchDispatchWork()
            let queue = OperationQueue()
            queue.name = "silent queue"
            clock.watch(queue)
            let silent = FinishedUnannounced()
            clock.storyTurn { queue.addOperation(silent) }
            // Started before the guard's window opens: a loaded machine may take a while to start it.
            silent.started.wait()
            let emptied = await clock.waitUntilEmpty(queue, atMost: 1)
            return (emptied, clock.stuck)
        }
        #expect(!emptied, "the queue never let go, yet the wait said it was empty")
        #expect(stuck?.hasSuffix("silent queue: letting go of a finished operation") == true, "\(stuck ?? "nil")")
    }

    /// A fetch that blocks no thread keeps the story going while it is in
    /// flight; one with nothing of it ever due is a hang, and the guard says so.
    @Test func aFetchInFlightWithNothingDueIsAHangNotTheEnd() async {
        let clock = SleepClock(hangSeconds: 0.2)
        defer { clock.shutDown() }
        _ = clock.startTask()
        let ended = await clock.waitUntilIdle()
        #expect(!ended, "the story ended with a fetch in flight")
        #expect(clock.stuck?.hasSuffix(": 1 request in flight with nothing of it due") == true, "\(clock.stuck ?? "")")
    }
}

/// Set once, read from any thread.
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// An operation that never announces it is finished (no `isFinished` change
/// notice) and says it is to every thread but the one its queue started it
/// on: the queue, which asks that thread as `start()` returns, never lets go
/// of it, and everyone else reads it finished from then on.
private final class FinishedUnannounced: Operation, @unchecked Sendable {
    private let lock = NSLock()
    private var startedOn: pthread_t?
    /// Signalled once its queue has started it.
    let started = DispatchSemaphore(value: 0)

    override var isAsynchronous: Bool { true }
    override var isFinished: Bool {
        lock.withLock { startedOn.map { pthread_equal($0, pthread_self()) == 0 } ?? false }
    }
    override func start() {
        lock.withLock { startedOn = pthread_self() }
        started.signal()
    }
}

/// A thread's body held back until `start`.
private final class HeldThread: @unchecked Sendable {
    private let lock = NSLock()
    private var body: (@Sendable () -> Void)?

    func hold(_ body: @escaping @Sendable () -> Void) { lock.withLock { self.body = body } }

    func start() {
        if let body = lock.withLock({ body }) { Thread.detachNewThread(body) }
    }
}

/// Story times noted from any thread, in the order they were.
private final class Stamps: @unchecked Sendable {
    private let lock = NSLock()
    private var stamps: [Double] = []

    func append(_ stamp: Double) { lock.withLock { stamps.append(stamp) } }
    var all: [Double] { lock.withLock { stamps } }
}
