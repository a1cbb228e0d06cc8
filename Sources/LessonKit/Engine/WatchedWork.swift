import DispatchSeam
import Foundation
import SlowNetwork

/// The app's operation queues a `SleepClock` watches, and how it hears of
/// them: kept apart from the time, which they only hold still.
struct WatchedQueues {
    var queues: [OperationQueue] = []
    /// The queues whose operations have slept on the clock, in the order they first did.
    private(set) var sleptIn: [OperationQueue] = []
    /// Operations a thread of the clock's waits on (`whenFinished`).
    var awaited: Set<ObjectIdentifier> = []
    /// A turn of the main queue asked for, to hear when its work so far is done.
    var mainTurnAsked = false

    mutating func watch(_ queue: OperationQueue) {
        if !queues.contains(where: { $0 === queue }) { queues.append(queue) }
    }

    /// An operation of `queue` sleeps on the clock: the app's queues are
    /// learnt from what sleeps, none need be declared.
    mutating func noteSleep(in queue: OperationQueue) {
        watch(queue)
        if !sleptIn.contains(where: { $0 === queue }) { sleptIn.append(queue) }
    }
}

/// The work a story clock watches, as read once: an operation at a time.
struct WatchedWork: Equatable {
    /// An operation not finished yet.
    struct Seen: Equatable {
        let operation: Operation
        let isExecuting: Bool
        let canStart: Bool

        init(_ operation: Operation) {
            self.operation = operation
            isExecuting = operation.isExecuting
            canStart = operation.canStart
        }

        static func == (one: Seen, other: Seen) -> Bool {
            one.operation === other.operation && one.isExecuting == other.isExecuting && one.canStart == other.canStart
        }
    }

    /// A watched queue as read once: what it holds unfinished, and what decides whether any of it may start.
    struct SeenQueue: Equatable {
        let queue: OperationQueue
        let unfinished: [Seen]
        /// Finished operations it still holds.
        let finishedHeld: Int
        let isSuspended: Bool
        let limit: Int

        init(_ queue: OperationQueue) {
            self.queue = queue
            let held = queue.operations
            let unfinished = held.filter { !$0.isFinished }
            self.unfinished = unfinished.map(Seen.init)
            finishedHeld = held.count - unfinished.count
            isSuspended = queue.isSuspended
            limit = queue.maxConcurrentOperationCount
        }

        static func == (one: SeenQueue, other: SeenQueue) -> Bool {
            one.queue === other.queue && one.unfinished == other.unfinished && one.finishedHeld == other.finishedHeld
                && one.isSuspended == other.isSuspended && one.limit == other.limit
        }
    }

    /// Whether a wait for a condition has it now: that wait's end is on its way.
    let aConditionHolds: Bool
    let queues: [SeenQueue]
    /// Operations waited for (`waitUntilFinished`) not finished yet.
    let waitedFor: [Seen]

    init(queues: [OperationQueue], waitedFor: [Operation], conditions: [@Sendable () -> Bool]) {
        aConditionHolds = conditions.contains { $0() }
        self.queues = queues.map(SeenQueue.init)
        self.waitedFor = waitedFor.filter { !$0.isFinished }.map(Seen.init)
    }
}

/// What keeps a `SleepClock`'s time still in one look at the watched work,
/// said for a person (the hang guard's `stuck`), and what to wait for to
/// hear it end. Nil when nothing does.
struct BusyWork {
    private(set) var what: [String] = []
    private(set) var toAwait: [Operation] = []
    private(set) var mainQueueBusy = false
    /// The threads asleep on the clock: an operation asleep is not busy.
    private let sleepers: [StoryTimeline.Sleeper]

    init?(in look: WatchedWork, sleepers: [StoryTimeline.Sleeper], deliveriesRunning: Int, watchesDispatchWork: Bool) {
        self.sleepers = sleepers
        if look.aConditionHolds {
            what = ["a wait whose condition holds, about to end"]
            return
        }
        if deliveriesRunning > 0 { what.append("the network: \(deliveriesRunning) deliveries running") }
        if watchesDispatchWork { noteDispatchWork() }
        for seen in look.queues { note(seen, watchesDispatchWork: watchesDispatchWork) }
        noteUnseen(look)
        if what.isEmpty { return nil }
    }

    /// Work of `queue` (nil: of no queue) asleep on the clock.
    private func asleep(in queue: ObjectIdentifier?) -> Int {
        sleepers.filter { $0.queue == queue }.count
    }

    private mutating func noteDispatchWork() {
        let counts = seam_count()
        let awake = counts.turns_elsewhere - counts.turns_elsewhere_parked
        if awake > 0 {
            what.append("Dispatch: \(counted(awake, "block")) the story's turns started, running or queued, not asleep")
        }
    }

    private mutating func note(_ seen: WatchedWork.SeenQueue, watchesDispatchWork: Bool) {
        let queue = seen.queue
        let name = queue.name ?? "an operation queue"
        // A finished operation the queue still holds: it lets go in a moment, and what the app does next
        // may depend on it (step 9's resume starts a new loop only once `operationCount` is 0). The end of
        // the Dispatch block letting go is heard through the seam's signal (`watchDispatchWork`); without
        // the seam nothing says it, and the time does not wait for it.
        if watchesDispatchWork && seen.finishedHeld > 0 && queue !== OperationQueue.main {
            what.append("\(name): letting go of a finished operation")
        }
        let running = seen.unfinished.filter(\.isExecuting)
        let asleep = asleep(in: ObjectIdentifier(queue))
        let freeSlots =
            seen.limit == OperationQueue.defaultMaxConcurrentOperationCount ? Int.max : max(0, seen.limit - running.count)
        let startable = seen.isSuspended ? [] : seen.unfinished.filter { !$0.isExecuting && $0.canStart }.prefix(freeSlots)
        guard running.count > asleep || !startable.isEmpty else { return }
        what.append("\(name): \(running.count - asleep) running, \(startable.count) ready to start")
        if queue === OperationQueue.main {
            mainQueueBusy = true
        } else {
            toAwait += (running + startable).map(\.operation)
        }
    }

    /// Waited for, in a queue not watched yet: running, or free to start, it is busy.
    private mutating func noteUnseen(_ look: WatchedWork) {
        let inWatchedQueues = Set(look.queues.flatMap(\.unfinished).map { ObjectIdentifier($0.operation) })
        let unseen = look.waitedFor.filter { !inWatchedQueues.contains(ObjectIdentifier($0.operation)) }
        let running = unseen.filter(\.isExecuting)
        let startable = unseen.filter { !$0.isExecuting && $0.canStart }
        guard running.count > asleep(in: nil) || !startable.isEmpty else { return }
        what.append(
            "\(counted(running.count + startable.count, "operation")) waited for, in a queue the clock does not watch yet")
        toAwait += (running + startable).map(\.operation)
    }
}

extension Operation {
    /// Whether a queue could start it now: every dependency done (a cancelled
    /// operation waits for none).
    fileprivate var canStart: Bool {
        isCancelled || dependencies.allSatisfy(\.isFinished)
    }
}
