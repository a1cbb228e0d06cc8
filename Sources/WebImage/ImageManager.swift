import Foundation
import SlowNetwork
import TableKit

/// Memory, disk, network, in that order, for one URL: SDWebImage's
/// `SDWebImageManager`, tying `ImageCache` and `ImageDownloader` together,
/// with the failed-URL list and the options.
///
/// `completed` runs on the main queue: at once when the image is in memory
/// and the call was made on the main queue, otherwise on a later turn. A load
/// whose token is cancelled calls nothing after that.
public final class ImageManager: @unchecked Sendable {
    /// Called on the main queue with the image (or the error), where it came from, and the URL it was for.
    public typealias Completed =
        @Sendable (
            _ image: Image?, _ error: WebImageError?, _ cacheType: ImageCacheType, _ imageURL: URL?
        ) -> Void

    /// Memory and disk.
    public let imageCache: ImageCache
    /// The network: one download per URL, however many callers.
    public let imageDownloader: ImageDownloader

    private let lock = NSLock()
    /// URLs whose download failed for good (`WebImageError.isPermanent`):
    /// not asked for again without `.retryFailed`. In memory only, as
    /// SDWebImage's: a relaunch forgets it.
    private var failedURLs: Set<URL> = []
    /// Loads not finished yet, for `cancelAll`: from `loadImage` until their
    /// last `completed` has run on the main queue, or they are cancelled.
    private var running: [ObjectIdentifier: LoadToken] = [:]

    /// A manager over this cache and downloader; most callers want `init(network:cachesDirectory:now:)`.
    public init(imageCache: ImageCache, imageDownloader: ImageDownloader) {
        self.imageCache = imageCache
        self.imageDownloader = imageDownloader
    }

    /// The usual manager: files in `cachesDirectory`, downloads from `network`,
    /// time (for the files' age) from `now`.
    public convenience init(
        network: SlowNetwork, cachesDirectory: URL, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(
            imageCache: ImageCache(directory: cachesDirectory, now: now),
            imageDownloader: ImageDownloader(network: network))
    }

    /// Loads `url`: from memory, else from disk, else from the network
    /// (kept in both caches then). `progress` runs on a background queue
    /// while it downloads; `completed` on the main queue, once (twice with
    /// `.refreshCached` when the server's image differs from the cached one).
    @discardableResult
    public func loadImage(
        with url: URL?, options: WebImageOptions = [], progress: ImageProgress? = nil,
        completed: @escaping Completed
    ) -> LoadToken {
        let token = LoadToken(url: url, manager: self, completed: completed)
        guard let url else {
            deliver(token, nil, .invalidURL, .none, isLast: true)
            return token
        }
        if !options.contains(.retryFailed) && lock.withLock({ failedURLs.contains(url) }) {
            deliver(token, nil, .failedBefore, .none, isLast: true)
            return token
        }
        lock.withLock { running[ObjectIdentifier(token)] = token }
        let key = url.absoluteString
        if let image = imageCache.imageFromMemory(forKey: key) {
            let refresh = options.contains(.refreshCached)
            deliver(token, image, nil, .memory, isLast: !refresh)
            if refresh { download(url, options: options, progress: progress, for: token, cached: image) }
            return token
        }
        let query = imageCache.queryDisk(forKey: key) { [self] image, _ in
            guard !token.isCancelled else { return }
            if let image {
                let refresh = options.contains(.refreshCached)
                deliver(token, image, nil, .disk, isLast: !refresh)
                if !refresh { return }
            }
            download(url, options: options, progress: progress, for: token, cached: image)
        }
        token.attach(query)
        return token
    }

    /// Cancels every load under way: none calls its `completed` any more,
    /// and downloads nobody else waits for stop. SDWebImage's `cancelAll`,
    /// the first half of the tutorial's memory-warning clean-up.
    public func cancelAll() {
        let tokens = lock.withLock { () -> [LoadToken] in
            defer { running.removeAll() }
            return Array(running.values)
        }
        imageDownloader.withoutNewStarts { for token in tokens { token.cancel() } }
    }

    /// Whether `url` failed for good and is not asked for again without `.retryFailed`.
    public func isFailedURL(_ url: URL) -> Bool { lock.withLock { failedURLs.contains(url) } }

    /// Lets `url` be tried again.
    public func removeFailedURL(_ url: URL) { _ = lock.withLock { failedURLs.remove(url) } }

    /// Lets every failed URL be tried again.
    public func removeAllFailedURLs() { lock.withLock { failedURLs.removeAll() } }

    /// Loads under way.
    public var runningLoadCount: Int { lock.withLock { running.count } }

    // MARK: inside

    private func download(
        _ url: URL, options: WebImageOptions, progress: ImageProgress?, for token: LoadToken, cached: Image?
    ) {
        let key = url.absoluteString
        let download = imageDownloader.downloadImage(with: url, options: options, progress: progress) {
            [self] result in
            switch result {
            case .success(let downloaded):
                lock.withLock { _ = failedURLs.remove(url) }
                // Callers of one download share its image: it is stored once.
                if imageCache.imageFromMemory(forKey: key) !== downloaded.image {
                    imageCache.store(
                        downloaded.image, data: downloaded.data, forKey: key,
                        toDisk: !options.contains(.cacheMemoryOnly))
                }
                // A refresh that brought the image already shown says nothing more.
                if let cached, cached.fingerprint == downloaded.image.fingerprint {
                    finish(token)
                } else {
                    deliver(token, downloaded.image, nil, .none, isLast: true)
                }
            case .failure(let error):
                if error.isPermanent { lock.withLock { _ = failedURLs.insert(url) } }
                // A refresh that failed leaves the cached image shown.
                if cached != nil {
                    finish(token)
                } else {
                    deliver(token, nil, error, .none, isLast: true)
                }
            }
        }
        token.attach(download, from: imageDownloader)
    }

    /// Calls the token's `completed` on the main queue, unless it is cancelled
    /// by then. The load counts as running until that call: a `cancelAll`
    /// made while the call waits on the main queue silences it too.
    private func deliver(
        _ token: LoadToken, _ image: Image?, _ error: WebImageError?, _ cacheType: ImageCacheType, isLast: Bool
    ) {
        let complete = { @Sendable [self] in
            token.complete(image, error, cacheType)
            if isLast { finish(token) }
        }
        if MainQueue.isCurrent {
            complete()
        } else {
            OperationQueue.main.addOperation(complete)
        }
    }

    /// The load is over (done, or cancelled by its token): let go of it.
    fileprivate func finish(_ token: LoadToken) {
        _ = lock.withLock { running.removeValue(forKey: ObjectIdentifier(token)) }
    }
}

/// One load under way: SDWebImage's combined operation (a cache query, then
/// perhaps a download). Cancelling it stops both, silences its `completed`
/// and lets the manager let go of it (and of `completed`, which holds the
/// caller's view).
public final class LoadToken: @unchecked Sendable {
    /// The URL being loaded (nil: the load was asked for no URL, and ended at once).
    public let url: URL?
    private weak var manager: ImageManager?
    private let completed: ImageManager.Completed
    private let lock = NSLock()
    private var cancelled = false
    private var cacheQuery: Operation?
    private var download: (token: DownloadToken, downloader: ImageDownloader)?

    init(url: URL?, manager: ImageManager, completed: @escaping ImageManager.Completed) {
        self.url = url
        self.manager = manager
        self.completed = completed
    }

    /// Whether `cancel()` was called.
    public var isCancelled: Bool { lock.withLock { cancelled } }

    /// Stops the load: the cache query if it has not run, this caller's share of the download (the download
    /// itself only when no other caller waits for it); `completed` is not called after this returns.
    public func cancel() {
        let (query, download) = lock.withLock { () -> (Operation?, (DownloadToken, ImageDownloader)?) in
            cancelled = true
            defer {
                cacheQuery = nil
                self.download = nil
            }
            return (cacheQuery, self.download)
        }
        query?.cancel()
        if let (token, downloader) = download { downloader.cancel(token) }
        manager?.finish(self)
    }

    func attach(_ query: Operation) {
        let stop = lock.withLock {
            if !cancelled { cacheQuery = query }
            return cancelled
        }
        if stop { query.cancel() }
    }

    /// A token cancelled while its download was being asked for cancels that at once.
    func attach(_ token: DownloadToken, from downloader: ImageDownloader) {
        let stop = lock.withLock {
            if !cancelled {
                cacheQuery = nil
                download = (token, downloader)
            }
            return cancelled
        }
        if stop { downloader.cancel(token) }
    }

    /// On the main queue.
    func complete(_ image: Image?, _ error: WebImageError?, _ cacheType: ImageCacheType) {
        guard !isCancelled else { return }
        completed(image, error, cacheType, url)
    }
}
