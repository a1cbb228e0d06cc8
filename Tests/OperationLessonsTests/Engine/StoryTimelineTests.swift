import Foundation
import SlowNetwork
import Testing

@testable import LessonKit

/// The clock core both story clocks move (`StoryTimeline`) and the parts of
/// `SleepClock` that have rules of their own: the story's waits
/// (`StoryWaits`) and what keeps its time still (`BusyWork`).
@Suite struct StoryTimelineTests {
    /// Sleepers due by the instant wake together; later ones sleep on; the
    /// time never moves back.
    @Test func advanceWakesEverySleeperDueByThenAndNoOther() {
        var timeline = StoryTimeline(startingAt: .seconds(1))
        let (early, alsoEarly, late) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        timeline.sleep(1, until: .seconds(1.5), wake: early)
        timeline.sleep(2, until: .seconds(2), wake: alsoEarly)
        timeline.sleep(3, until: .seconds(3), wake: late)
        #expect(timeline.nextDue == .seconds(1.5))
        let due = timeline.advance(to: .seconds(2))
        #expect(Set(due.wokenThreads) == [1, 2])
        #expect(early.wait(timeout: .now()) == .success && alsoEarly.wait(timeout: .now()) == .success)
        #expect(late.wait(timeout: .now()) == .timedOut, "a sleeper due later was woken")
        #expect(timeline.nextDue == .seconds(3))
        _ = timeline.advance(to: .seconds(0.5))
        #expect(timeline.now == .seconds(2), "the time moved back")
        #expect(timeline.wakeEveryone() == [3] && late.wait(timeout: .now()) == .success)
    }

    /// Deliveries due together come out in the order they were asked for,
    /// after any due earlier; one asked for a time already past is due now.
    @Test func deliveriesComeDueInTheOrderTheyWereAskedFor() {
        var timeline = StoryTimeline(startingAt: .seconds(1))
        let queue = DispatchQueue(label: "deliveries")
        let ran = Log()
        let asked: [(label: String, at: StoryTime)] = [
            ("b", .seconds(2)), ("past", .zero), ("c", .seconds(2)), ("a", .seconds(1.5)), ("later", .seconds(3)),
        ]
        for (label, at) in asked { timeline.deliver(at: at, on: queue) { ran.note(label) } }
        #expect(timeline.nextDue == .seconds(1), "a delivery asked for a time past is not due now")
        for delivery in timeline.advance(to: .seconds(2)).deliveries { delivery.work() }
        #expect(ran.lines == ["past", "a", "b", "c"])
        #expect(timeline.deliveries.count == 1 && timeline.nextDue == .seconds(3))
    }

    @Test func aFetchIsInFlightFromItsStartToItsFinish() {
        var timeline = StoryTimeline()
        let first = timeline.startFetch()
        let second = timeline.startFetch()
        #expect(first != second && timeline.fetchesInFlight.count == 2)
        timeline.finishFetch(first)
        #expect(timeline.fetchesInFlight == [second])
    }

    /// A wait's time is up at its due time; one with none ends only by its
    /// trigger or the story's end; each ends once, in the order waits began.
    @Test func storyWaitsEndOnceInTheOrderTheyBegan() {
        var waits = StoryWaits()
        let ended = Log()
        func wait(_ label: String, due: StoryTime?, endsWhenIdle: Bool = false) -> Int {
            waits.add(.init(due: due, endsWhenIdle: endsWhenIdle) { ended.note("\(label): \($0)") })
        }
        let second = wait("second", due: .seconds(1))
        _ = wait("first", due: .seconds(1))
        _ = wait("idle", due: nil, endsWhenIdle: true)
        let trigger = wait("trigger", due: nil)
        #expect(waits.nextDue == .seconds(1))
        for due in waits.takeDue(by: .seconds(1)) { due.resume(false) }
        #expect(ended.lines == ["second: false", "first: false"])
        #expect(waits.end(second) == nil, "a wait ended twice")
        waits.end(trigger)?.resume(true)
        for idle in waits.takeEndingWhenIdle() { idle.resume(true) }
        #expect(ended.lines == ["second: false", "first: false", "trigger: true", "idle: true"])
        #expect(waits.isEmpty && waits.nextDue == nil)
    }

    /// An operation asleep on the clock does not keep the time still; one
    /// running and not asleep does, named by its queue; one waited for that
    /// no watched queue holds does, as soon as it could start.
    @Test func busyWorkIsWhatRunsAwakeOrCouldStart() {
        let queue = OperationQueue()
        queue.name = "downloads"
        let (started, finish) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
        queue.addOperation {
            started.signal()
            finish.wait()
        }
        started.wait()
        defer {
            finish.signal()
            queue.waitUntilAllOperationsAreFinished()
        }
        let look = WatchedWork(queues: [queue], waitedFor: [], conditions: [])
        let awake = BusyWork(in: look, sleepers: [], deliveriesRunning: 0, watchesDispatchWork: false)
        #expect(awake?.what == ["downloads: 1 running, 0 ready to start"])
        let asleep = StoryTimeline.Sleeper(due: .seconds(1), wake: DispatchSemaphore(value: 0), queue: ObjectIdentifier(queue))
        #expect(BusyWork(in: look, sleepers: [asleep], deliveriesRunning: 0, watchesDispatchWork: false) == nil)

        let unqueued = BlockOperation {}
        let waited = WatchedWork(queues: [], waitedFor: [unqueued], conditions: [])
        #expect(
            BusyWork(in: waited, sleepers: [], deliveriesRunning: 0, watchesDispatchWork: false)?.what
                == ["1 operation waited for, in a queue the clock does not watch yet"])
        unqueued.addDependency(BlockOperation {})
        let blocked = WatchedWork(queues: [], waitedFor: [unqueued], conditions: [])
        #expect(BusyWork(in: blocked, sleepers: [], deliveriesRunning: 0, watchesDispatchWork: false) == nil)
    }
}

/// What happened, in the order it did, from any thread.
private final class Log: @unchecked Sendable {
    private let lock = NSLock()
    private var all: [String] = []

    func note(_ line: String) { lock.withLock { all.append(line) } }
    var lines: [String] { lock.withLock { all } }
}
