import Foundation
import SlowNetwork

/// The one clock core of every story: the story's time, the threads asleep
/// until a time, and the network's work that holds no thread (fetches in
/// flight, their deliveries). Both story clocks keep one under their lock and
/// move it the same way (`advance`); when it may move is theirs to say:
/// `StoryClock` when the image list's app is idle, `SleepClock` when no
/// operation it watches is busy.
struct StoryTimeline {
    /// A thread asleep until `due`, woken through a semaphore of its own.
    struct Sleeper {
        let due: StoryTime
        let wake: DispatchSemaphore
        /// The operation queue whose operation sleeps, if the driver tells.
        let queue: ObjectIdentifier?
    }

    /// The app's work the network hands to `queue` once `due` (a fetch's chunks).
    struct Delivery {
        let due: StoryTime
        /// The order it was asked for in: deliveries due together run in it.
        let order: Int
        let queue: DispatchQueue
        let work: @Sendable () -> Void
    }

    /// What is due by the time `advance` moved to.
    struct Due {
        /// Already signalled, by the thread each sleeps on.
        var wokenThreads: [UInt] = []
        /// For the driver to hand to their queues, in this order.
        var deliveries: [Delivery] = []

        var isEmpty: Bool { wokenThreads.isEmpty && deliveries.isEmpty }
    }

    private(set) var now: StoryTime
    private(set) var sleepers: [UInt: Sleeper] = [:]
    private(set) var deliveries: [Delivery] = []
    private var deliveriesAsked = 0
    /// Fetches that block no thread, in flight (`startFetch`) by token.
    private(set) var fetchesInFlight: Set<Int> = []
    private var lastFetch = 0

    init(startingAt start: StoryTime = .zero) { now = start }

    /// The key a sleeper is kept by: a thread sleeps once at a time.
    static var currentThread: UInt { UInt(pthread_self()) }

    /// The earliest time a sleeper or a delivery is due.
    var nextDue: StoryTime? {
        (sleepers.values.map(\.due) + deliveries.map(\.due)).min()
    }

    // MARK: threads

    /// `thread` sleeps until `due`; `advance` signals `wake` then.
    mutating func sleep(_ thread: UInt, until due: StoryTime, wake: DispatchSemaphore, queue: ObjectIdentifier? = nil) {
        sleepers[thread] = Sleeper(due: due, wake: wake, queue: queue)
    }

    /// Wakes every sleeper (the story is over) and says which threads they were.
    mutating func wakeEveryone() -> [UInt] {
        defer { sleepers = [:] }
        for sleeper in sleepers.values { sleeper.wake.signal() }
        return Array(sleepers.keys)
    }

    // MARK: the network's work that holds no thread

    mutating func startFetch() -> Int {
        lastFetch += 1
        fetchesInFlight.insert(lastFetch)
        return lastFetch
    }

    mutating func finishFetch(_ token: Int) { fetchesInFlight.remove(token) }

    /// Runs `work` on `queue` at `instant`, or now if that has passed.
    mutating func deliver(at instant: StoryTime, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        deliveriesAsked += 1
        deliveries.append(Delivery(due: max(instant, now), order: deliveriesAsked, queue: queue, work: work))
    }

    mutating func dropDeliveries() { deliveries.removeAll() }

    // MARK: moving on

    /// Moves the time to `instant` (never back), wakes every sleeper due by
    /// then, all at once (requests that end together run their code together,
    /// as on a real network), and takes out the deliveries due, in the order
    /// they are due and were asked for.
    mutating func advance(to instant: StoryTime) -> Due {
        now = max(now, instant)
        var due = Due()
        for (thread, sleeper) in sleepers where sleeper.due <= now {
            sleepers[thread] = nil
            sleeper.wake.signal()
            due.wokenThreads.append(thread)
        }
        due.deliveries = deliveries.filter { $0.due <= now }.sorted { ($0.due, $0.order) < ($1.due, $1.order) }
        deliveries.removeAll { $0.due <= now }
        return due
    }
}
