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

    /// Work due now goes to its queue under the lock, as `advance` sends what fell due: the two in the order
    /// the lock takes them. Sent after it, a fetch's second piece, asked for as `advance` passed its instant,
    /// reached the delivery queue before the first, which `advance` had taken: the piece after the end was
    /// dropped (`ImageDownloadOperationTests` once saw three of four progress reports).
    func run(at instant: StoryTime, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        condition.withLock {
            guard !isShutDown else { return }
            if instant <= timeline.now {
                queue.async(execute: work)
            } else {
                timeline.deliver(at: instant, on: queue, work)
            }
        }
        changes.notify()
    }

    /// Work scheduled for later that has not run yet.
    var pendingCount: Int { condition.withLock { timeline.deliveries.count } }

    /// Moves time on by `seconds`: what fell due runs, in the order of its instants.
    func advance(by seconds: Double) {
        condition.withLock {
            let due = timeline.advance(to: timeline.now + .seconds(seconds))
            for delivery in due.deliveries { delivery.queue.async(execute: delivery.work) }
            condition.broadcast()
        }
    }
}
