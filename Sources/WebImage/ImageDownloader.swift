import Foundation
import SlowNetwork
import TableKit

/// Downloads images, at most `maxConcurrentDownloads` at once (6 by
/// default, as SDWebImage), one download per URL however many callers ask
/// for it: step 5's operation pool, grown up.
///
/// - **Coalescing.** A URL already downloading gets the new caller added to
///   its download instead of a second request.
/// - **A token per caller.** Each call returns a `DownloadToken`. Cancelling
///   it removes that caller only; the download is cancelled when its last
///   caller is gone. (Cancelling the shared operation instead takes the image
///   from every other caller: SDWebImage issue #1576.)
/// - **Order.** First in, first out by default; last in, first out makes each
///   waiting download depend on the newest one, as SDWebImage does, so the
///   rows the user just scrolled to load first.
/// - **Low priority.** A `.lowPriority` download that has not started waits
///   while any table is dragged or gliding (`TableView.didBeginTrackingNotification`)
///   and starts when it comes to rest; if all its callers leave meanwhile it
///   never starts. Step 7 suspended its whole queue; here it is an option per
///   load: each waiting low-priority download depends on a gate operation
///   of its own, and the gates are run, in the order the downloads were
///   queued, on the main queue's next turn after the table comes to rest
///   (as work scheduled for UIKit's default run-loop mode runs once the
///   tracking mode ends). A download keeps the priority of the caller that
///   started it.
///
/// Callers' handlers run on the network's delivery queue, or on the thread
/// that cancels. `open` so that a lesson can show the naive cancel (step 10's
/// `--naive-cancel`); a real app has no reason to subclass it.
open class ImageDownloader: @unchecked Sendable {
    /// Which waiting download starts first: the oldest (the queue's own order) or the newest, the row the
    /// user is looking at now (SDWebImage's `SDWebImageDownloaderLIFOExecutionOrder`).
    public enum ExecutionOrder: Sendable {
        case firstInFirstOut, lastInFirstOut
    }

    /// Called once per caller, on a background queue, with the image or why there is none.
    public typealias Completion = @Sendable (Result<DownloadedImage, WebImageError>) -> Void

    /// What a download brings: the decoded image and the bytes it came from.
    public struct DownloadedImage: Sendable {
        public let image: Image
        public let data: Data
    }

    /// The queue the downloads run on. For instruments (the lessons' story
    /// clock watches it) and tests: add nothing to it.
    public let queue: OperationQueue
    /// Where the downloads come from.
    public let network: SlowNetwork
    /// The order waiting downloads start in; changing it affects the ones added after.
    public var executionOrder: ExecutionOrder {
        get { lock.withLock { order } }
        set { lock.withLock { order = newValue } }
    }

    /// How many downloads may run at once (6 by default, as SDWebImage and Nuke have it): the queue's
    /// `maxConcurrentOperationCount`.
    public var maxConcurrentDownloads: Int {
        get { queue.maxConcurrentOperationCount }
        set { queue.maxConcurrentOperationCount = newValue }
    }

    /// Stops starting downloads (the ones running go on): SDWebImage's `setSuspended:`.
    public var isSuspended: Bool {
        get { queue.isSuspended }
        set { queue.isSuspended = newValue }
    }

    /// One URL's download and everyone waiting for it.
    final class Download: @unchecked Sendable {
        let url: URL
        /// Set once, let go of when it has ended (its handlers hold the download
        /// until then, so that its callers hear even once it is off the list).
        var operation: ImageDownloadOperation!
        /// By token id, in the order they came.
        var callers: [(id: Int, progress: ImageProgress?, completion: Completion)] = []
        let isLowPriority: Bool

        init(url: URL, isLowPriority: Bool) {
            self.url = url
            self.isLowPriority = isLowPriority
        }
    }

    private let lock = NSLock()
    private var order: ExecutionOrder
    private var downloads: [URL: Download] = [:]
    /// Whether a table is moving under the user's hand.
    private var isTracking = false
    /// The low-priority downloads held back meanwhile, each with its gate, in
    /// the order they were queued. The list keeps them alive until their gate
    /// has run (see `keptForDependency`).
    private var gated: [(gate: Operation, download: Operation)] = []
    /// The operations waiting for the newest download when last in goes
    /// first out, kept alive until it has finished. swift-corelibs-foundation's
    /// `Operation` holds its dependents unretained: a dependent cancelled,
    /// finished and freed before its dependency finishes leaves the dependency
    /// a dangling pointer, and the process crashes when that finishes.
    private var keptForDependency: [ObjectIdentifier: [Operation]] = [:]
    private var lastTokenID = 0
    private var observers: [any NSObjectProtocol] = []

    /// A downloader for `network`. It watches the table's drags (`TableView.didBeginTrackingNotification`), to hold
    /// back `.lowPriority` downloads while the user scrolls: step 7's suspended queue, for those who ask for it.
    public init(
        network: SlowNetwork, maxConcurrentDownloads: Int = 6, executionOrder: ExecutionOrder = .firstInFirstOut
    ) {
        self.network = network
        order = executionOrder
        queue = OperationQueue()
        queue.name = "WebImage downloads"
        queue.maxConcurrentOperationCount = maxConcurrentDownloads
        let center = NotificationCenter.default
        observers = [
            center.addObserver(forName: TableView.didBeginTrackingNotification, object: nil, queue: nil) {
                [weak self] _ in self?.setTracking(true)
            },
            center.addObserver(forName: TableView.didEndTrackingNotification, object: nil, queue: nil) {
                [weak self] _ in self?.setTracking(false)
            },
        ]
    }

    deinit {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
    }

    /// Downloads `url`, or joins its download under way. `completion` is
    /// called once, unless the token is cancelled first (then never).
    public func downloadImage(
        with url: URL, options: WebImageOptions = [], progress: ImageProgress? = nil,
        completion: @escaping Completion
    ) -> DownloadToken {
        var toEnqueue: ImageDownloadOperation?
        let token = lock.withLock { () -> DownloadToken in
            lastTokenID += 1
            let id = lastTokenID
            let download: Download
            // A download cancelled or over but not yet taken off the list is
            // not joined (as SDWebImage checks): its callers hear "cancelled".
            if let existing = downloads[url], !existing.operation.isCancelled, !existing.operation.isFinished {
                download = existing
            } else {
                download = Download(url: url, isLowPriority: options.contains(.lowPriority))
                let operation = makeOperation(for: download)
                operation.queuePriority =
                    options.contains(.highPriority) ? .high : download.isLowPriority ? .low : .normal
                if download.isLowPriority && isTracking { hold(operation) }
                download.operation = operation
                downloads[url] = download
                toEnqueue = operation
            }
            // Handlers before the operation is queued: it cannot finish without them.
            download.callers.append((id, progress, completion))
            return DownloadToken(url: url, id: id, operation: download.operation)
        }
        if let toEnqueue { enqueue(toEnqueue) }
        return token
    }

    /// Takes the token's caller off its download, which is cancelled if no
    /// caller is left. Its completion is not called.
    open func cancel(_ token: DownloadToken) {
        let orphan = lock.withLock { () -> ImageDownloadOperation? in
            guard let download = downloads[token.url], download.operation === token.operation else { return nil }
            download.callers.removeAll { $0.id == token.id }
            guard download.callers.isEmpty else { return nil }
            downloads[token.url] = nil
            return download.operation
        }
        // Outside the lock: cancelling calls the operation's completion, which takes it.
        orphan?.cancel()
    }

    /// Cancels every download and forgets every caller: no completion is called.
    public func cancelAllDownloads() {
        let operations = lock.withLock { () -> [ImageDownloadOperation] in
            let operations = downloads.values.map(\.operation!)
            downloads.removeAll()
            return operations
        }
        withoutNewStarts { for operation in operations { operation.cancel() } }
    }

    /// Runs `body`, which cancels several downloads, with the queue held:
    /// cancelling a running download frees its slot, and the queue would start
    /// the next waiting one in it at once, on another thread, perhaps just
    /// before `body` cancels that one too (a download started for nothing,
    /// or not, as the threads fall). Held, it starts what is still wanted
    /// afterwards, in its own order.
    func withoutNewStarts(_ body: () -> Void) {
        let wasSuspended = queue.isSuspended
        queue.isSuspended = true
        body()
        queue.isSuspended = wasSuspended
    }

    /// Downloads under way or waiting, one per URL.
    public var currentDownloadCount: Int { lock.withLock { downloads.count } }

    /// Callers waiting for `url`'s download (0 when there is none).
    public func callerCount(for url: URL) -> Int { lock.withLock { downloads[url]?.callers.count ?? 0 } }

    // MARK: inside

    /// The operation for a download, reporting to whoever waits for it when it reports.
    func makeOperation(for download: Download) -> ImageDownloadOperation {
        ImageDownloadOperation(url: download.url, network: network) { [weak self] received, expected in
            guard let self else { return }
            let handlers = lock.withLock { download.callers.compactMap { $0.progress } }
            for handler in handlers { handler(received, expected) }
        } completion: { [weak self] result in
            guard let self else { return }
            finished(download, with: result)
        }
    }

    /// The download ended: its callers hear, in the order they came. The
    /// bytes are decoded once, for all of them.
    private func finished(_ download: Download, with result: Result<Data, NetworkError>) {
        let callers = lock.withLock { () -> [Completion] in
            if downloads[download.url] === download { downloads[download.url] = nil }
            let callers = download.callers.map(\.completion)
            download.callers.removeAll()
            download.operation = nil
            return callers
        }
        guard !callers.isEmpty else { return }
        let outcome: Result<DownloadedImage, WebImageError>
        switch result {
        case .success(let data):
            if let image = Image(data: data) {
                outcome = .success(DownloadedImage(image: image, data: data))
            } else {
                outcome = .failure(.badImageData)
            }
        case .failure(let error):
            outcome = .failure(.network(error))
        }
        for completion in callers { completion(outcome) }
    }

    private func enqueue(_ operation: ImageDownloadOperation) {
        if executionOrder == .lastInFirstOut {
            // Every download still waiting waits for this one too.
            let waiting = queue.operations.filter { !$0.isExecuting && !$0.isFinished && !$0.isCancelled }
            for other in waiting { other.addDependency(operation) }
            keep(waiting, until: operation)
        }
        queue.addOperation(operation)
    }

    /// Keeps `dependents` alive until `operation` has finished and let them know.
    private func keep(_ dependents: [Operation], until operation: Operation) {
        let id = ObjectIdentifier(operation)
        lock.withLock { keptForDependency[id] = dependents }
        // A completion block runs after the queue is done with the operation and its dependents.
        operation.completionBlock = { [weak self] in
            guard let self else { return }
            _ = lock.withLock { keptForDependency.removeValue(forKey: id) }
        }
    }

    /// Makes a low-priority download wait for a gate of its own. Under the lock.
    private func hold(_ operation: Operation) {
        let gate = BlockOperation {}
        gate.name = "WebImage: a table is moving"
        operation.addDependency(gate)
        gated.append((gate, operation))
    }

    /// A table started or stopped moving under the user's hand (main queue).
    /// Starting: every low-priority download not started yet is held back.
    /// Stopping: they are let go on the main queue's next turn.
    private func setTracking(_ tracking: Bool) {
        if tracking {
            // In the order the queue holds them, which is the order they were queued.
            let waiting = queue.operations.compactMap { $0 as? ImageDownloadOperation }.filter {
                $0.queuePriority == .low && !$0.isExecuting && !$0.isFinished && !$0.isCancelled
            }
            lock.withLock {
                guard !isTracking else { return }
                isTracking = true
                for operation in waiting where downloads[operation.url]?.operation === operation { hold(operation) }
            }
            return
        }
        let released = lock.withLock { () -> [(gate: Operation, download: Operation)] in
            isTracking = false
            defer { gated.removeAll() }
            return gated
        }
        guard !released.isEmpty else { return }
        OperationQueue.main.addOperation {
            // One gate after another, each making its download ready: the
            // queue starts them in this order. Each gate's `start()` has let
            // its download know before it returns; after the last, the list
            // (and with it the downloads) can go.
            for (gate, _) in released { gate.start() }
        }
    }
}

/// One caller's claim on a download: cancel it (`ImageDownloader.cancel`)
/// when that caller no longer wants the image.
public final class DownloadToken: @unchecked Sendable {
    public let url: URL
    let id: Int
    /// The download the token waits for, shared with every other caller of
    /// its URL. Cancel the token, not this (see `ImageDownloader.cancel`).
    public private(set) weak var operation: ImageDownloadOperation?

    init(url: URL, id: Int, operation: ImageDownloadOperation) {
        self.url = url
        self.id = id
        self.operation = operation
    }
}
