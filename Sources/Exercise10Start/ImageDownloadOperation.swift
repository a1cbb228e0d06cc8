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
    public let url: URL
    private let network: SlowNetwork
    private let progress: @Sendable (_ received: Int, _ expected: Int) -> Void
    private let completion: @Sendable (Result<Data, NetworkError>) -> Void

    /// Guards what follows: `start()`, `cancel()` and the fetch's callbacks
    /// run on different threads.
    private let lock = NSLock()
    private var task: NetworkTask?
    private var hasCompleted = false

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

    // Exercise 10: yours to write. `start()` below begins a fetch and returns
    // at once; the download is over only when `complete(with:)` runs, on the
    // network's queue, perhaps seconds later. The queue cannot tell by itself:
    // give the operation a state of its own (`isAsynchronous`, `isExecuting`,
    // `isFinished`, read under `lock`), announce every change with
    // `willChangeValue(forKey:)`/`didChangeValue(forKey:)`, and let it finish
    // when it is cancelled before it starts. `swift run lessons hint 10`.

    // MARK: the download

    public override func start() {
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

    public override func cancel() {
        super.cancel()
        let task = lock.withLock { self.task }
        // The task reports its own `.cancelled` later, to `complete`.
        task?.cancel()
    }

    /// Hands the outcome over, the first time only.
    private func complete(with result: Result<Data, NetworkError>) {
        let isFirst = lock.withLock {
            defer { hasCompleted = true }
            task = nil
            return !hasCompleted
        }
        guard isFirst else { return }
        completion(result)
    }
}
