import Foundation

/// Whether the app has anything left to do before the story's next event:
/// the question the story clock asks before it moves on, answered from
/// outside the app, with what it shows anyone: its operation queues, the
/// threads waiting in the network, and `OperationQueue.main`.
///
/// The app is idle when every operation its queues are running waits in the
/// network, no queue has an operation ready to start and a thread allowed to
/// start it, and the main queue has no operation left. (The run then takes one
/// more turn of the main queue and checks that no UI was touched meanwhile:
/// work handed to the main queue with `DispatchQueue.main.async` shows no
/// other way.)
struct AppActivity {
    let clock: StoryClock

    enum Look: Equatable {
        case idle
        /// What is still busy, in words: the hang guard's message.
        case busy(String)
    }

    /// Looks once. Lets callers waiting for a worker slot in when one is free
    /// and nothing else of their queue is still on its way to the network.
    ///
    /// - Parameter mainThreadWaits: the main thread itself waits in the network
    ///   (step 1), so its queue cannot drain and is not asked, nor the Swift
    ///   tasks, which run there.
    func look(mainThreadWaits: Bool) -> Look {
        let callers = clock.callersNow
        if let starting = callers.first(where: { $0.state == .admitted || $0.state == .released }) {
            return .busy("a request for \(starting.url) is \(starting.state == .admitted ? "starting" : "ending")")
        }
        if clock.deliveriesRunning > 0 { return .busy("the network is delivering a fetch's data") }
        // Tasks run on the main queue too: while the main thread waits, they wait with it.
        if !mainThreadWaits, case let jobs = SwiftTaskActivity.jobsWaiting, jobs > 0 {
            return .busy("Swift tasks: \(jobs) jobs to run")
        }
        let tasks = clock.tasksNow
        for queue in clock.watcher.queues {
            if let busy = look(at: queue, callers: callers, tasks: tasks.filter { $0 == ObjectIdentifier(queue) }.count) {
                return .busy(busy)
            }
        }
        if !mainThreadWaits, case let count = Self.mainQueueOperationsToRun, count > 0 {
            return .busy("the main queue: \(count) operations to run")
        }
        return .idle
    }

    /// What keeps `queue` busy, if anything. Reading its operations copies
    /// the whole list, which a long backlog makes costly, so the common idle
    /// states are recognised from its count first: every operation waiting in
    /// the network, or every thread it may use waiting there. (With every
    /// worker slot of a queue with no limit taken, its other operations wait
    /// in the story, whatever a spare real thread does with one meanwhile.)
    ///
    /// - Parameter tasks: the queue's fetches in flight that block no thread
    ///   (an asynchronous operation waits on one, on no thread).
    private func look(at queue: OperationQueue, callers: [StoryClock.Caller], tasks: Int) -> String? {
        let id = ObjectIdentifier(queue)
        let inNetwork = callers.filter { $0.queue == id }
        let holdingSlots = inNetwork.filter { $0.state != .waitingForSlot }
        let count = queue.operationCount
        let hasNoLimit = queue.maxConcurrentOperationCount == OperationQueue.defaultMaxConcurrentOperationCount
        let threads = hasNoLimit ? StoryClock.unlimitedQueueWorkers : queue.maxConcurrentOperationCount
        if count == inNetwork.count + tasks && holdingSlots.count == inNetwork.count { return nil }
        if holdingSlots.count == threads { return nil }
        let operations = queue.operations
        let running = operations.filter(\.isExecuting).count
        if running != inNetwork.count + tasks {
            return "\(Self.name(of: queue)): \(running) operations running, \(inNetwork.count + tasks) of them in the network"
        }
        let ready = operations.filter { !$0.isExecuting && !$0.isFinished && $0.isReady }.count
        if hasNoLimit {
            let free = threads - holdingSlots.count
            if free > 0 && holdingSlots.count < inNetwork.count {
                let first = clock.watcher.startingOrder(of: inNetwork, in: queue).filter { caller in
                    inNetwork.contains { $0.thread == caller && $0.state == .waitingForSlot }
                }
                clock.admit(threads: Array(first.prefix(free)))
                return "\(Self.name(of: queue)): letting requests into free worker slots"
            }
            if free > 0 && ready > 0 && !queue.isSuspended {
                return "\(Self.name(of: queue)): \(ready) operations ready, waiting for a thread"
            }
        } else if ready > 0 && !queue.isSuspended && running < threads {
            return "\(Self.name(of: queue)): \(ready) operations ready, waiting for a thread"
        }
        return nil
    }

    /// The main queue's operations that are running or could run now: those
    /// whose dependencies have all finished. One waiting for a dependency runs
    /// when the dependency ends (on a queue the clock watches); one in a
    /// dependency cycle never runs, and must not keep the story from moving on.
    /// (`isReady` is not asked: it can read false for a moment while an
    /// operation is being enqueued.)
    static var mainQueueOperationsToRun: Int {
        guard OperationQueue.main.operationCount > 0 else { return 0 }
        return OperationQueue.main.operations.filter { operation in
            operation.dependencies.allSatisfy(\.isFinished)
        }.count
    }

    /// Nothing is going on and nothing can start by itself: no request, no
    /// running operation, none that could start, nothing for the main queue.
    /// (A suspended queue's operations wait for the app, which is idle.)
    var hasStopped: Bool {
        guard clock.callersNow.isEmpty, clock.tasksNow.isEmpty, clock.deliveriesPending == 0,
            clock.deliveriesRunning == 0, Self.mainQueueOperationsToRun == 0, SwiftTaskActivity.jobsWaiting == 0
        else { return false }
        return clock.watcher.queues.allSatisfy { queue in
            queue.operations.allSatisfy { $0.isFinished || (queue.isSuspended && !$0.isExecuting) }
        }
    }

    /// Everything still busy, for the hang guard's message.
    var whatIsBusy: String {
        var lines: [String] = []
        for queue in clock.watcher.queues {
            let operations = queue.operations
            let limit = queue.maxConcurrentOperationCount
            lines.append(
                "\(Self.name(of: queue)) (limit \(limit < 0 ? "none" : String(limit))"
                    + (queue.isSuspended ? ", suspended" : "") + "): "
                    + "\(operations.filter(\.isExecuting).count) operations running, "
                    + "\(operations.filter { !$0.isExecuting && !$0.isFinished && $0.isReady }.count) ready, "
                    + "\(operations.filter { !$0.isReady }.count) waiting for dependencies")
        }
        for caller in clock.callersNow.sorted(by: { $0.url < $1.url }) {
            let state =
                switch caller.state {
                case .waitingForSlot: "waiting for a worker slot"
                case .admitted: "starting"
                case .sleeping(let due): "in flight until \(Int(due.milliseconds)) ms"
                case .released: "ending"
                }
            lines.append("request for \(caller.url) \(caller.isOnMainQueue ? "on the main queue " : ""): \(state)")
        }
        lines.append("the main queue: \(Self.mainQueueOperationsToRun) operations to run")
        lines.append("Swift tasks: \(SwiftTaskActivity.jobsWaiting) jobs to run")
        return lines.joined(separator: "\n  ")
    }

    private static func name(of queue: OperationQueue) -> String {
        let name = queue.name ?? ""
        return name.hasPrefix("NSOperationQueue") || name.isEmpty ? "an operation queue" : "queue '\(name)'"
    }
}
