import Foundation
import SlowNetwork

/// A network clock that moves only when a test moves it: a fetch stays in
/// flight until `advance(by:)` passes its end, so a test sees "under way" for
/// sure, however late a busy machine runs it. A test waits for a request to
/// start on its `changes`.
final class ManualClock: WatchedNetworkClock, @unchecked Sendable {
    let changes = Changes()

    private struct Pending {
        let instant: StoryTime
        let order: Int
        let queue: DispatchQueue
        let work: @Sendable () -> Void
    }

    // NSCondition, as WallClock: Thread Sanitizer on Linux does not see Mutex.
    private let condition = NSCondition()
    private var time = StoryTime.zero
    private var pending: [Pending] = []
    private var scheduled = 0
    private var isShutDown = false

    var now: StoryTime { condition.withLock { time } }

    func admit(_ url: String) -> StoryTime? { condition.withLock { isShutDown ? nil : time } }

    /// A blocking request sleeps once it is logged in flight.
    func sleep(until due: StoryTime) -> Bool {
        changes.notify()
        condition.lock()
        defer { condition.unlock() }
        while !isShutDown, time < due { condition.wait() }
        return !isShutDown
    }

    /// Called once a blocking request's end is logged.
    func leave() { changes.notify() }

    func shutDown() {
        condition.withLock {
            isShutDown = true
            pending = []
            condition.broadcast()
        }
        changes.notify()
    }

    func startTask() -> Int { 0 }

    /// Called once a suspending request's end is logged.
    func finishTask(_ token: Int) { changes.notify() }

    func run(at instant: StoryTime, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        let now = condition.withLock { () -> Bool in
            guard !isShutDown else { return false }
            if instant <= time { return true }
            scheduled += 1
            pending.append(Pending(instant: instant, order: scheduled, queue: queue, work: work))
            return false
        }
        if now { queue.async(execute: work) }
        changes.notify()
    }

    /// Work scheduled for later that has not run yet.
    var pendingCount: Int { condition.withLock { pending.count } }

    /// Moves time on by `seconds`: what fell due runs, in the order of its instants.
    func advance(by seconds: Double) {
        let due = condition.withLock { () -> [Pending] in
            time = time + .seconds(seconds)
            let due = pending.filter { $0.instant <= time }
            pending.removeAll { $0.instant <= time }
            condition.broadcast()
            return due.sorted { ($0.instant, $0.order) < ($1.instant, $1.order) }
        }
        for item in due { item.queue.async(execute: item.work) }
    }
}
