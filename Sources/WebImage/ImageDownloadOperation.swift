import Foundation
import SlowNetwork

/// One download as an *asynchronous* operation: it starts a fetch that blocks
/// no thread and returns at once; the operation is finished when the fetch
/// ends, on the network's delivery queue. Step 7's `DownloadOperation` held a
/// worker thread for the whole download; this one holds none.
///
/// `completion` gets the body or the error exactly once (`.cancelled` for a
/// cancelled operation), just before the operation is finished. Progress and
/// completion run on the network's delivery queue, or on the thread that
/// cancelled.
public final class ImageDownloadOperation: Operation, @unchecked Sendable {
    /// What it downloads.
    public let url: URL
    private let network: SlowNetwork
    private let progress: @Sendable (_ received: Int, _ expected: Int) -> Void
    private let completion: @Sendable (Result<Data, NetworkError>) -> Void

    /// Guards what follows: `start()`, `cancel()` and the fetch's callbacks
    /// run on different threads.
    private let lock = NSLock()
    private var task: NetworkTask?
    private var hasCompleted = false

    /// An operation that downloads `url` from `network` when a queue starts it, reporting bytes as they come to
    /// `progress` and the end, once, to `completion` (not at all once cancelled).
    public init(
        url: URL, network: SlowNetwork, progress: @escaping @Sendable (_ received: Int, _ expected: Int) -> Void,
        completion: @escaping @Sendable (Result<Data, NetworkError>) -> Void
    ) {
        self.url = url
        self.network = network
        self.progress = progress
        self.completion = completion
    }

    // MARK: the state of an asynchronous operation

    // The queue cannot tell by itself when an asynchronous operation is over,
    // so the operation keeps its own state and says when it changes:
    // - `isAsynchronous` is true and `start()` is overridden, not `main()`
    //   (the default `start()` calls `main()` and marks the operation
    //   finished as soon as it returns);
    // - `isExecuting` and `isFinished` are its own, read under the lock, and
    //   every change is announced with `willChangeValue`/`didChangeValue(forKey:)`
    //   for "isExecuting" and "isFinished". On Apple's platforms that is KVO,
    //   which the queue observes. In swift-corelibs-foundation
    //   `willChangeValue` does nothing, and `didChangeValue(forKey:
    //   "isFinished")` is the queue's only way to hear it, once `isFinished`
    //   already reads true; without it the queue keeps the operation, and its
    //   slot, for ever;
    // - it finishes whether or not it started: cancelled while waiting, it is
    //   still started by the queue, and must end there and then.

    private enum State {
        case ready, executing, finished
    }

    private var state = State.ready

    /// Asynchronous: `start()` returns at once and the operation finishes when the fetch calls back, so no
    /// thread waits for the network (step 7's operation held one for every download).
    public override var isAsynchronous: Bool { true }
    public override var isExecuting: Bool { lock.withLock { state == .executing } }
    public override var isFinished: Bool { lock.withLock { state == .finished } }

    /// Changes the state and says so. The announcement is made outside the
    /// lock: the queue reacts by reading `isFinished`, which takes it.
    private func move(to new: State) {
        willChangeValue(forKey: "isExecuting")
        willChangeValue(forKey: "isFinished")
        lock.withLock { state = new }
        didChangeValue(forKey: "isExecuting")
        didChangeValue(forKey: "isFinished")
    }

    // MARK: the download

    /// Starts the fetch, or finishes at once if cancelled while it waited in the queue.
    public override func start() {
        // Cancelled before it started: it never fetches, and it must still
        // finish, or the queue waits for it for ever.
        guard !isCancelled else { return complete(with: .failure(.cancelled)) }
        move(to: .executing)
        let task = network.fetch(url) { [self] received, expected in
            if !isCancelled { progress(received, expected) }
        } completion: { [self] result in
            complete(with: result)
        }
        // `cancel()` may have come while there was no task yet to stop.
        let stopNow = lock.withLock {
            if !hasCompleted { self.task = task }
            return hasCompleted
        }
        if stopNow || isCancelled {
            task.cancel()
            complete(with: .failure(.cancelled))
        }
    }

    /// Cancels the fetch under way (unlike `Data(contentsOf:)`, a `NetworkTask` can be stopped) and, if the
    /// operation is running, finishes it now.
    public override func cancel() {
        super.cancel()
        let (task, wasExecuting) = lock.withLock { (self.task, state == .executing) }
        // The task reports its own `.cancelled` later; `complete` ignores it.
        task?.cancel()
        // Running: it ends now.
        if wasExecuting { complete(with: .failure(.cancelled)) }
    }

    /// Hands the outcome over and finishes, the first time only.
    private func complete(with result: Result<Data, NetworkError>) {
        let isFirst = lock.withLock {
            defer { hasCompleted = true }
            task = nil
            return !hasCompleted
        }
        guard isFirst else { return }
        completion(result)
        move(to: .finished)
    }
}
