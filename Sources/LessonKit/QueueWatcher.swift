import Foundation
import LessonSupport

/// The app's operation queues, watched from outside: found by reflection on
/// the controller's stored properties (a `lazy var queue` included) or when
/// one of their operations first asks the network for something, and the
/// order in which each queue started its operations.
///
/// The order matters for a queue with no limit (`StoryClock`): when several
/// of its operations wait for a worker slot, the one the queue started first
/// gets it. The queue starts them in the order they were added, but threads
/// that pick two of them up together can reach the network in either order.
/// So each operation is tagged when it appears, with the icon of the row whose
/// `cellForRowAt` added it, and a request waiting for a slot is matched to the
/// earliest running operation tagged with its URL. Where no tag fits, the
/// earliest running operation is taken and the guess is counted: the report
/// then says its times may differ between runs.
final class QueueWatcher: @unchecked Sendable {
    private struct Tag {
        weak var operation: Operation?
        let order: Int
        let url: String?
    }

    private final class Watched {
        weak var queue: OperationQueue?
        var foundByReflection = false
        /// Looks skipped since the queue was found too long to tag (its
        /// length is itself a walk down the whole list, in corelibs).
        var skippedWhileLong: Int?
        var tags: [ObjectIdentifier: Tag] = [:]
        /// The operation each thread in the network was matched to.
        var matched: [UInt: ObjectIdentifier] = [:]

        init(_ queue: OperationQueue) {
            self.queue = queue
        }
    }

    /// The longest queue whose new operations are tagged, and how many looks a
    /// longer one is left alone for before it is measured again.
    static let mostOperationsTagged = 256

    private let lock = NSLock()
    private var watched: [ObjectIdentifier: Watched] = [:]
    private var nextOrder = 0
    private var counts = Unseen()

    /// What the harness could not see in time; each makes the run's times
    /// depend on the machine (see `Report.clockNotes`).
    struct Unseen: Equatable {
        /// Requests from work in no operation queue (a GCD block, a thread).
        var requestsFromUnwatchedWork = 0
        /// Queues found only when one of their operations asked the network,
        /// never among the controller's properties.
        var queuesFoundLate = 0
        /// Requests matched to an operation by guess (see above).
        var guessedOrders = 0
    }

    var unseen: Unseen {
        lock.withLock {
            var unseen = counts
            unseen.queuesFoundLate += watched.values.filter { !$0.foundByReflection }.count
            return unseen
        }
    }

    /// The queues still alive.
    var queues: [OperationQueue] {
        lock.withLock {
            for (id, entry) in watched where entry.queue == nil {
                if !entry.foundByReflection { counts.queuesFoundLate += 1 }
                watched[id] = nil
            }
            return watched.values.compactMap(\.queue)
        }
    }

    /// What the watched queues hold and allow: their operations, how many are
    /// suspended, and their limits. A frame that leaves it as it found it
    /// started no work; one that resumes a queue (step 7, after a drag) did,
    /// though no operation was added.
    var state: QueueState {
        lock.withLock {
            watched.values.reduce(into: QueueState()) { state, watched in
                guard let queue = watched.queue else { return }
                state.operations += queue.operationCount
                state.suspended += queue.isSuspended ? 1 : 0
                state.limits += queue.maxConcurrentOperationCount
            }
        }
    }

    struct QueueState: Equatable {
        var operations = 0
        var suspended = 0
        var limits = 0
    }

    /// Watches every operation queue among `object`'s stored properties.
    func watchQueues(of object: AnyObject) {
        for queue in Self.operationQueues(in: object) {
            lock.withLock { watchLocked(queue).foundByReflection = true }
        }
    }

    /// The operation queues among `object`'s stored properties (its class's
    /// and its superclasses'), a `lazy var` included, but the main queue; then
    /// those a controller names as its library's (`LessonController.operationQueues`).
    static func operationQueues(in object: AnyObject) -> [OperationQueue] {
        var queues: [OperationQueue] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children {
                // The type first: `as?` on a Swift array would bridge it to check.
                guard let value = unwrapped(child.value), type(of: value) is OperationQueue.Type,
                    let queue = value as? OperationQueue, queue !== OperationQueue.main
                else { continue }
                queues.append(queue)
            }
            mirror = current.superclassMirror
        }
        if let controller = object as? any LessonController {
            queues += controller.operationQueues.filter { queue in !queues.contains { $0 === queue } }
        }
        return queues
    }

    /// A queue found at a request from one of its operations.
    func learn(_ queue: OperationQueue) {
        lock.withLock { _ = watchLocked(queue) }
    }

    func noteRequestFromUnwatchedWork() {
        lock.withLock { counts.requestsFromUnwatchedWork += 1 }
    }

    /// Tags the operations that appeared in the watched queues since the last
    /// look, in the order each queue holds them, with the URL they are
    /// expected to fetch, as the network names it (nil: unknown).
    func tagNewOperations(fetching url: String?) {
        lock.withLock {
            for entry in watched.values {
                // Only a queue with no limit waits for slots; and a long backlog (thousands of
                // rows scrolled past) is left untagged rather than copied at every row.
                guard let queue = entry.queue,
                    queue.maxConcurrentOperationCount == OperationQueue.defaultMaxConcurrentOperationCount
                else { continue }
                if let skipped = entry.skippedWhileLong, skipped < Self.mostOperationsTagged {
                    entry.skippedWhileLong = skipped + 1
                    continue
                }
                let operations = queue.operations
                entry.skippedWhileLong = operations.count > Self.mostOperationsTagged ? 0 : nil
                if entry.skippedWhileLong != nil { continue }
                entry.tags = entry.tags.filter { $0.value.operation.map { !$0.isFinished } ?? false }
                for operation in operations where entry.tags[ObjectIdentifier(operation)]?.operation !== operation {
                    entry.tags[ObjectIdentifier(operation)] = Tag(operation: operation, order: nextOrder, url: url)
                    nextOrder += 1
                }
            }
        }
    }

    /// The threads of `callers` (all of `queue`'s running operations, each
    /// waiting in the network) in the order the queue started the operations
    /// they run. Called while none of the queue's operations is on its way to
    /// the network, so each running operation has its caller.
    func startingOrder(of callers: [StoryClock.Caller], in queue: OperationQueue) -> [UInt] {
        lock.withLock {
            let entry = watchLocked(queue)
            let running = queue.operations.filter(\.isExecuting).compactMap { operation -> (ObjectIdentifier, Tag)? in
                let id = ObjectIdentifier(operation)
                guard let tag = entry.tags[id], tag.operation === operation else { return nil }
                return (id, tag)
            }.sorted { $0.1.order < $1.1.order }
            entry.matched = entry.matched.filter { match in
                callers.contains { $0.thread == match.key } && running.contains { $0.0 == match.value }
            }
            var unmatched = callers.filter { entry.matched[$0.thread] == nil }.sorted { $0.arrival < $1.arrival }
            var unclaimed: [(ObjectIdentifier, Tag)] = []
            for (id, tag) in running where !entry.matched.values.contains(id) {
                if let index = unmatched.firstIndex(where: { $0.url == tag.url }) {
                    entry.matched[unmatched.remove(at: index).thread] = id
                } else {
                    unclaimed.append((id, tag))
                }
            }
            // What the tags cannot tell: operations added outside `cellForRowAt`,
            // or fetching something else than their row's icon.
            if unmatched.count > 1 { counts.guessedOrders += unmatched.count }
            for (caller, operation) in zip(unmatched, unclaimed) { entry.matched[caller.thread] = operation.0 }
            let order = Dictionary(running.map { ($0.0, $0.1.order) }, uniquingKeysWith: { first, _ in first })
            return callers.sorted {
                (entry.matched[$0.thread].flatMap { order[$0] } ?? Int.max, $0.arrival)
                    < (entry.matched[$1.thread].flatMap { order[$0] } ?? Int.max, $1.arrival)
            }.map(\.thread)
        }
    }

    @discardableResult
    private func watchLocked(_ queue: OperationQueue) -> Watched {
        if let entry = watched[ObjectIdentifier(queue)], entry.queue === queue { return entry }
        let entry = Watched(queue)
        watched[ObjectIdentifier(queue)] = entry
        return entry
    }

    /// A lazy property is stored as an Optional: look inside it.
    static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { unwrapped($0.value) } ?? nil
    }
}
