import Foundation
import SlowNetwork
import TableKit

/// A scenario's clock: story time, which moves only when the app has nothing
/// left to do before the next thing is due (docs/architecture.md, "The story
/// clock"). This half keeps the time and the threads waiting in the network;
/// `AppActivity` tells when the app is idle, and the run moves the time on.
///
/// Every thread that asks the network for something waits here: first for
/// leave to start (`admit`), then for its answer to be due (`sleep(until:)`).
/// The time moves on only on the main thread, so a request's answer comes
/// exactly when it is due, however slow the machine.
///
/// A queue with no `maxConcurrentOperationCount` runs as many operations at
/// once as libdispatch has threads for it: on Linux one per core at first,
/// one more each second while they block; on iOS up to 64. That count is
/// machine timing, so the story fixes it at `unlimitedQueueWorkers`: a request
/// from such a queue waits for one of its worker slots, and `AppActivity` lets
/// the waiting ones in in the order the queue started their operations. A
/// queue with a limit gets every thread its limit allows, and the clock waits
/// for the real ones.
final class StoryClock: NetworkClock, @unchecked Sendable {
    /// Worker threads the story gives a queue that sets no limit: the two of a
    /// two-core machine's pool before it grows.
    static let unlimitedQueueWorkers = 2

    /// One thread inside the network.
    struct Caller {
        enum State: Equatable {
            /// Waiting for a worker slot of its queue (a queue with no limit).
            case waitingForSlot
            /// Let in; about to say when its answer is due.
            case admitted
            case sleeping(until: StoryTime)
            /// Its answer is due; it is on its way out.
            case released
        }

        let thread: UInt
        /// The operation queue it works for (nil: the main queue, or work the
        /// harness cannot see, such as a GCD block).
        let queue: ObjectIdentifier?
        let isOnMainQueue: Bool
        let url: String
        /// When it came, among all callers.
        let arrival: Int
        var state: State
    }

    let watcher: QueueWatcher
    /// Moves the story on while the main thread itself waits in the network
    /// (step 1): nothing else could. Set by the run; called on the main thread.
    var whileMainThreadWaits: (() -> Void)?

    // NSCondition, not Synchronization's Mutex: Thread Sanitizer on Linux does not see Mutex.
    private let condition = NSCondition()
    private var time = StoryTime.zero
    private var isShutDown = false
    private var callers: [UInt: Caller] = [:]
    /// What each caller waits on, to be let in or woken: a semaphore of its
    /// own, so that threads woken together do not hand each other the
    /// clock's lock on their way out (Thread Sanitizer would take that for an
    /// order between what they do next, and miss a race between them).
    private var wakes: [UInt: DispatchSemaphore] = [:]
    private var arrivals = 0
    /// Fetches that block no thread, in flight, by token: the operation queue
    /// each works for (nil: the main queue, or work the harness cannot see).
    private var tasks: [Int: ObjectIdentifier?] = [:]
    private var lastToken = 0
    /// Work due at a story time (`run(at:on:)`): a fetch's chunks.
    private var timers: [Timer] = []
    private var timersAsked = 0
    /// Timer work handed to its queue that has not returned yet.
    private var timersRunning = 0
    private var changeCount = 0
    /// The thread that runs the main queue's work now (`noteMainQueueThread`).
    private var mainQueueThread: UInt?

    init(watcher: QueueWatcher) {
        self.watcher = watcher
    }

    var now: StoryTime { condition.withLock { time } }

    /// Whether the calling thread is the main queue's, in its own work or in
    /// a `DispatchQueue.global().sync` it made (which runs the block on the
    /// calling thread, where the main queue's tag is not seen).
    var isOnMainQueueThread: Bool {
        MainQueue.isCurrent || condition.withLock { mainQueueThread } == Self.currentThread
    }

    /// Called on the main queue by the run at each turn: on Linux the main
    /// queue's work need not run on the process's first thread.
    func noteMainQueueThread() {
        let thread = Self.currentThread
        condition.withLock { mainQueueThread = thread }
    }

    private struct Timer {
        let due: StoryTime
        let order: Int
        let queue: DispatchQueue
        let work: @Sendable () -> Void
    }

    // MARK: the network's side, on the requesting thread

    /// The operation queue the calling code runs in (nil: the main queue's
    /// thread, or work in no queue, which is noted as such).
    private func queueOfCaller() -> (queue: OperationQueue?, isOnMainQueue: Bool) {
        let isOnMainQueue = isOnMainQueueThread
        let queue = isOnMainQueue ? nil : OperationQueue.current.flatMap { $0 === OperationQueue.main ? nil : $0 }
        if let queue {
            watcher.learn(queue)
        } else if !isOnMainQueue {
            watcher.noteRequestFromUnwatchedWork()
        }
        return (queue, isOnMainQueue)
    }

    func admit(_ url: String) -> StoryTime? {
        let thread = Self.currentThread
        let (queue, isOnMainQueue) = queueOfCaller()
        let waitsForSlot = queue?.maxConcurrentOperationCount == OperationQueue.defaultMaxConcurrentOperationCount
        let wake = DispatchSemaphore(value: 0)
        let admitted = condition.withLock { () -> Bool? in
            guard !isShutDown else { return nil }
            arrivals += 1
            callers[thread] = Caller(
                thread: thread, queue: queue.map(ObjectIdentifier.init), isOnMainQueue: isOnMainQueue, url: url,
                arrival: arrivals, state: waitsForSlot ? .waitingForSlot : .admitted)
            wakes[thread] = wake
            changed()
            return !waitsForSlot
        }
        guard let admitted else { return nil }
        if !admitted { wake.wait() }
        return condition.withLock { isShutDown ? nil : time }
    }

    func sleep(until due: StoryTime) -> Bool {
        let thread = Self.currentThread
        let wake = condition.withLock { () -> DispatchSemaphore? in
            guard !isShutDown else { return nil }
            callers[thread]?.state = .sleeping(until: due)
            changed()
            return wakes[thread]
        }
        guard let wake else { return false }
        if isOnMainQueueThread { whileMainThreadWaits?() }
        wake.wait()
        return condition.withLock { callers[thread]?.state == .released }
    }

    func leave() {
        condition.withLock {
            callers[Self.currentThread] = nil
            wakes[Self.currentThread] = nil
            changed()
        }
    }

    func shutDown() {
        condition.withLock {
            isShutDown = true
            for (thread, caller) in callers where caller.state != .released { wakes[thread]?.signal() }
            timers.removeAll()
            changed()
        }
    }

    func startTask() -> Int {
        let queue = queueOfCaller().queue.map(ObjectIdentifier.init)
        return condition.withLock {
            lastToken += 1
            tasks[lastToken] = queue
            changed()
            return lastToken
        }
    }

    func finishTask(_ token: Int) {
        condition.withLock {
            tasks[token] = nil
            changed()
        }
    }

    func run(at instant: StoryTime, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        condition.withLock {
            guard !isShutDown else { return }
            timersAsked += 1
            timers.append(Timer(due: max(instant, time), order: timersAsked, queue: queue, work: work))
            changed()
        }
    }

    // MARK: the run's side, on the main thread

    /// Everyone in the network now.
    var callersNow: [Caller] { condition.withLock { Array(callers.values) } }

    /// The queues of the fetches in flight that block no thread, one entry each.
    var tasksNow: [ObjectIdentifier?] { condition.withLock { Array(tasks.values) } }

    /// Whether work the network delivers (a fetch's chunk) is running, or
    /// due later: nothing of the network's is left when neither.
    var deliveriesRunning: Int { condition.withLock { timersRunning } }
    var deliveriesPending: Int { condition.withLock { timers.count } }

    /// Changes whenever a caller arrives, is let in, sleeps, wakes or leaves.
    var changes: Int { condition.withLock { changeCount } }

    /// The earliest time a sleeping caller's answer, or a delivery, is due.
    var nextDue: StoryTime? {
        condition.withLock {
            let answers = callers.values.compactMap { if case .sleeping(let due) = $0.state { due } else { nil } }
            return (answers + timers.map(\.due)).min()
        }
    }

    var mainThreadIsReleased: Bool {
        condition.withLock { callers.values.contains { $0.isOnMainQueue && $0.state == .released } }
    }

    /// Lets these callers, waiting for a worker slot, in.
    func admit(threads: [UInt]) {
        condition.withLock {
            for thread in threads where callers[thread]?.state == .waitingForSlot {
                callers[thread]?.state = .admitted
                wakes[thread]?.signal()
            }
            changed()
        }
    }

    /// Moves the time to `instant`, wakes every caller whose answer is due by
    /// then, all at once (requests that end together run their code together,
    /// as they would on a real network), and hands the deliveries due to their
    /// queues, in the order they were asked for. Returns how many it started.
    @discardableResult
    func advance(to instant: StoryTime) -> Int {
        condition.withLock {
            time = max(time, instant)
            var woken = 0
            for (thread, caller) in callers {
                if case .sleeping(let due) = caller.state, due <= time {
                    callers[thread]?.state = .released
                    wakes[thread]?.signal()
                    woken += 1
                }
            }
            let due = timers.filter { $0.due <= time }.sorted { ($0.due, $0.order) < ($1.due, $1.order) }
            timers.removeAll { $0.due <= time }
            for timer in due {
                timersRunning += 1
                timer.queue.async { [self] in
                    timer.work()
                    condition.withLock {
                        timersRunning -= 1
                        changed()
                    }
                }
            }
            changed()
            return woken + due.count
        }
    }

    /// Waits on the calling thread until a caller comes, goes or changes, or
    /// `timeout` passes.
    func waitForChange(since count: Int, timeout: Duration) {
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while changeCount == count, !isShutDown, condition.wait(until: deadline) {}
    }

    private func changed() {
        changeCount += 1
        condition.broadcast()
    }

    private static var currentThread: UInt { UInt(pthread_self()) }
}
