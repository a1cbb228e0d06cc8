import DispatchSeam
import Foundation
import SlowNetwork
import TableKit
import UnseenSync

/// The image list's clock: story time (a `StoryTimeline`), which moves only
/// when the app has nothing left to do before the next thing is due
/// (docs/architecture.md, "The story clock"). This half keeps the time and
/// the threads waiting in the network; `AppActivity` tells when the app is
/// idle, and the run moves the time on, on the main thread.
///
/// Every thread that asks the network for something is let in at once
/// (`admit`: how many threads the app's work gets is the Dispatch seam's
/// business, a device's up to `seam_device_threads`) and waits here for its
/// answer to be due (`sleep(until:)`). The time moves on only on the main
/// thread, so a request's answer comes exactly when it is due, however slow
/// the machine.
final class StoryClock: NetworkClock, @unchecked Sendable {
    /// One thread inside the network.
    struct Caller {
        enum State: Equatable {
            /// Let in; about to say when its answer is due.
            case admitted
            case sleeping(until: StoryTime)
            /// Its answer is due; it is on its way out.
            case released
        }

        let thread: UInt
        let isOnMainQueue: Bool
        let url: String
        var state: State
    }

    /// Moves the story on while the main thread itself waits in the network
    /// (step 1): nothing else could. Set by the run; called on the main thread.
    var whileMainThreadWaits: (() -> Void)?

    // NSCondition, not Synchronization's Mutex: Thread Sanitizer on Linux does not see Mutex.
    // Taken out of TSan's sight (`withUnseenLock`): the app's threads and the
    // main queue's looks take it, and seen it would order every download after
    // the main queue's last look and hide the races between them.
    private let condition = NSCondition()
    private var timeline: StoryTimeline
    private var isShutDown = false
    private var callers: [UInt: Caller] = [:]
    /// What each caller waits on, to be let in or woken: a semaphore of its
    /// own, so that threads woken together do not hand each other the
    /// clock's lock on their way out (Thread Sanitizer would take that for an
    /// order between what they do next, and miss a race between them).
    private var wakes: [UInt: DispatchSemaphore] = [:]
    /// The thread that runs the main queue's work now (`noteMainQueueThread`).
    private var mainQueueThread: UInt?
    private var origins = RequestOrigins()

    /// `start`: the story's time as the clock begins (a relaunch's new process starts mid-story).
    init(startingAt start: StoryTime = .zero) { timeline = StoryTimeline(startingAt: start) }

    var now: StoryTime { condition.withUnseenLock { timeline.now } }

    /// Whether the calling thread is the main queue's, in its own work or in
    /// a `DispatchQueue.global().sync` it made (which runs the block on the
    /// calling thread, where the main queue's tag is not seen).
    var isOnMainQueueThread: Bool {
        if MainQueue.isCurrent { return true }
        // Under `dispatchMain()` a worker thread that ran the main queue's
        // turn goes back to the pool and may run an operation next: then it is
        // that operation's thread, not the main queue's.
        guard seam_runs_main_queue_work() != 0 else { return false }
        return condition.withUnseenLock { mainQueueThread } == Self.currentThread
    }

    /// Called on the main queue by the run at each turn: on Linux the main
    /// queue's work need not run on the process's first thread.
    func noteMainQueueThread() {
        let thread = Self.currentThread
        condition.withUnseenLock { mainQueueThread = thread }
    }

    /// Where the requests came from, for the report: the limit of the first
    /// operation queue one came from, and how many came from work the
    /// harness does not see. Under `condition`.
    private struct RequestOrigins {
        private(set) var firstLimit: Int?
        private(set) var fromUnseenWork = 0

        mutating func note(queueLimit limit: Int?) {
            if let limit, firstLimit == nil { firstLimit = limit }
        }

        mutating func noteUnseenWork() { fromUnseenWork += 1 }
    }

    // MARK: the network's side, on the requesting thread

    func admit(_ url: String) -> StoryTime? {
        // Reading the caller's queue takes the queue's lock, which the main queue takes too.
        unseen_begin()
        defer { unseen_end() }
        let thread = Self.currentThread
        let isOnMainQueue = isOnMainQueueThread
        let limit = isOnMainQueue ? nil : Self.limitOfCurrentQueue
        let isUnseenWork = seam_current_serial() == 0 && !isOnMainQueue
        let wake = DispatchSemaphore(value: 0)
        return condition.withUnseenLock { () -> StoryTime? in
            guard !isShutDown else { return nil }
            origins.note(queueLimit: limit)
            if isUnseenWork { origins.noteUnseenWork() }
            callers[thread] = Caller(thread: thread, isOnMainQueue: isOnMainQueue, url: url, state: .admitted)
            wakes[thread] = wake
            changed()
            return timeline.now
        }
    }

    /// The limit of the operation queue the calling code runs in (inside an
    /// operation, `OperationQueue.current` is its queue), nil outside one.
    private static var limitOfCurrentQueue: Int? {
        OperationQueue.current.flatMap { $0 === OperationQueue.main ? nil : $0.maxConcurrentOperationCount }
    }

    /// Waits with the calling thread's Dispatch work counted as waiting in
    /// the story. The wait itself is the harness's: the seam leaves it alone.
    private func parked(_ wait: () -> Void) {
        seam_park(1)
        let saved = seam_leave_run()
        // The main queue's signal would order what it did before after the caller.
        unseen_begin()
        wait()
        unseen_end()
        seam_restore(saved)
        seam_park(0)
    }

    func sleep(until due: StoryTime) -> Bool {
        let thread = Self.currentThread
        let wake = condition.withUnseenLock { () -> DispatchSemaphore? in
            guard !isShutDown else { return nil }
            guard let wake = wakes[thread] else { return nil }
            callers[thread]?.state = .sleeping(until: due)
            timeline.sleep(thread, until: due, wake: wake)
            changed()
            return wake
        }
        guard let wake else { return false }
        if isOnMainQueueThread { whileMainThreadWaits?() }
        parked { wake.wait() }
        return condition.withUnseenLock { !isShutDown && callers[thread]?.state == .released }
    }

    func leave() {
        condition.withUnseenLock {
            callers[Self.currentThread] = nil
            wakes[Self.currentThread] = nil
            changed()
        }
    }

    func shutDown() {
        condition.withUnseenLock {
            isShutDown = true
            // Each woken caller is on its way out, and busy until it has left:
            // the run waits for what the app does on hearing of the failure.
            for thread in timeline.wakeEveryone() { callers[thread]?.state = .released }
            for (thread, caller) in callers where caller.state == .admitted {
                callers[thread]?.state = .released
                wakes[thread]?.signal()
            }
            timeline.dropDeliveries()
            changed()
        }
    }

    func startTask() -> Int {
        // Reading the caller's queue takes the queue's lock, as in `admit`.
        unseen_begin()
        defer { unseen_end() }
        let limit = isOnMainQueueThread ? nil : Self.limitOfCurrentQueue
        return condition.withUnseenLock {
            origins.note(queueLimit: limit)
            let token = timeline.startFetch()
            changed()
            return token
        }
    }

    func finishTask(_ token: Int) {
        condition.withUnseenLock {
            timeline.finishFetch(token)
            changed()
        }
    }

    func run(at instant: StoryTime, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        // Handed to its queue by the main queue, unseen (`advance`): it comes
        // after what its asker did, as a session's callback does, not after
        // what the main queue did.
        let handOver = HandOver()
        unseen_hand_over(handOver.token)
        let delivery: @Sendable () -> Void = {
            unseen_take_over(handOver.token)
            work()
        }
        condition.withUnseenLock {
            guard !isShutDown else { return }
            timeline.deliver(at: instant, on: queue, delivery)
            changed()
        }
    }

    // MARK: the run's side, on the main thread

    /// Everyone in the network now.
    var callersNow: [Caller] { condition.withUnseenLock { Array(callers.values) } }

    /// A caller on its way into or out of the network, if one is: asked every
    /// look, so without copying the others.
    var callerOnItsWay: Caller? {
        condition.withUnseenLock {
            callers.values.first { caller in
                switch caller.state {
                case .admitted, .released: true
                case .sleeping: false
                }
            }
        }
    }

    /// Fetches in flight that block no thread.
    var tasksInFlight: Int { condition.withUnseenLock { timeline.fetchesInFlight.count } }

    /// Work the network will deliver later (a fetch's chunks).
    var deliveriesPending: Int { condition.withUnseenLock { timeline.deliveries.count } }

    /// The limit of the first operation queue a request came from (nil: no
    /// request came from one, or it has no limit).
    var firstQueueLimit: Int? {
        condition.withUnseenLock {
            guard let limit = origins.firstLimit, limit != OperationQueue.defaultMaxConcurrentOperationCount, limit > 0
            else { return nil }
            return limit
        }
    }

    /// Requests from work the harness does not see: not the main queue, and
    /// no Dispatch work it counts (a `Thread` of the app's own).
    var requestsFromUnseenWork: Int { condition.withUnseenLock { origins.fromUnseenWork } }

    /// The earliest time a sleeping caller's answer, or a delivery, is due.
    var nextDue: StoryTime? { condition.withUnseenLock { timeline.nextDue } }

    var mainThreadIsReleased: Bool {
        condition.withUnseenLock { callers.values.contains { $0.isOnMainQueue && $0.state == .released } }
    }

    /// Moves the time to `instant`, wakes every caller whose answer is due by
    /// then, all at once, and hands the deliveries due to their queues, in the
    /// order they were asked for (`StoryTimeline.advance`). Returns how many
    /// it started.
    @discardableResult
    func advance(to instant: StoryTime) -> Int {
        condition.withUnseenLock {
            let due = timeline.advance(to: instant)
            for thread in due.wokenThreads { callers[thread]?.state = .released }
            for delivery in due.deliveries { delivery.queue.async(execute: delivery.work) }
            changed()
            return due.wokenThreads.count + due.deliveries.count
        }
    }

    /// A caller came, went or changed: the run's waits hear of it through
    /// the seam, with every change of the app's Dispatch work.
    private func changed() {
        seam_note_change()
    }

    private static var currentThread: UInt { StoryTimeline.currentThread }
}

/// A token for one hand-over Thread Sanitizer sees (`unseen_hand_over`): its address.
private final class HandOver: Sendable {
    var token: UnsafeRawPointer { UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()) }
}
