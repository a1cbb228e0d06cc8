import Foundation
import SlowNetwork

@testable import LessonKit

/// A network clock that moves only when a test moves it: a fetch stays in
/// flight until `advance(by:)` passes its end, so a test sees "under way" for
/// sure, however late a busy machine runs it. A test waits for a request to
/// start on its `changes`. Its time and deliveries are the story clock's core
/// (`StoryTimeline`), so work due together runs in the order it was asked for,
/// by the same rule as in every story.
final class ManualClock: WatchedNetworkClock, @unchecked Sendable {
    let changes = Changes()

    // NSCondition, as WallClock: Thread Sanitizer on Linux does not see Mutex.
    private let condition = NSCondition()
    private var timeline = StoryTimeline()
    private var isShutDown = false

    var now: StoryTime { condition.withLock { timeline.now } }

    func admit(_ url: String) -> StoryTime? { condition.withLock { isShutDown ? nil : timeline.now } }

    /// A blocking request sleeps once it is logged in flight.
    func sleep(until due: StoryTime) -> Bool {
        changes.notify()
        condition.lock()
        defer { condition.unlock() }
        while !isShutDown, timeline.now < due { condition.wait() }
        return !isShutDown
    }

    /// Called once a blocking request's end is logged.
    func leave() { changes.notify() }

    func shutDown() {
        condition.withLock {
            isShutDown = true
            timeline.dropDeliveries()
            condition.broadcast()
        }
        changes.notify()
    }

    func startTask() -> Int { 0 }

    /// Called once a suspending request's end is logged.
    func finishTask(_ token: Int) { changes.notify() }

    func run(at instant: StoryTime, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        let runsNow = condition.withLock { () -> Bool in
            guard !isShutDown else { return false }
            if instant <= timeline.now { return true }
            timeline.deliver(at: instant, on: queue, work)
            return false
        }
        if runsNow { queue.async(execute: work) }
        changes.notify()
    }

    /// Work scheduled for later that has not run yet.
    var pendingCount: Int { condition.withLock { timeline.deliveries.count } }

    /// Moves time on by `seconds`: what fell due runs, in the order of its instants.
    func advance(by seconds: Double) {
        let due = condition.withLock { () -> StoryTimeline.Due in
            defer { condition.broadcast() }
            return timeline.advance(to: timeline.now + .seconds(seconds))
        }
        for delivery in due.deliveries { delivery.queue.async(execute: delivery.work) }
    }
}
