import Foundation
import TableKit

/// Memory, then disk: SDWebImage's `SDImageCache`. Steps 4 and 6 side by
/// side, with the disk's work moved off the main queue.
///
/// Disk reads and writes run one at a time on `ioQueue`. SDWebImage uses a
/// serial dispatch queue there; this is an `OperationQueue` limited to one
/// operation because the lessons' story clock can see what an operation
/// queue holds, and so waits for a disk read before it moves time on.
public final class ImageCache: @unchecked Sendable {
    /// Decoded images by URL, costed by their bytes: what a memory warning empties (`clearMemory()`).
    public let memory: MemoryCache<String, Image>
    /// The downloaded bytes by URL, kept across launches.
    public let disk: DiskCache
    /// The serial queue every disk read and write runs on, off the main queue: step 6's writes, moved off it.
    public let ioQueue: OperationQueue

    /// Told the first time a file cannot be written (a folder it may not
    /// write, a full disk), on `ioQueue`, with what the file system said: the
    /// image stays in memory, and later writes are tried all the same, untold.
    /// The app says it once, rather than the cache failing in silence on
    /// every image.
    public var onFirstDiskWriteFailure: (@Sendable (_ error: any Error) -> Void)? {
        get { lock.withLock { writeFailureHandler } }
        set { lock.withLock { writeFailureHandler = newValue } }
    }

    private let lock = NSLock()
    private var writeFailureHandler: (@Sendable (_ error: any Error) -> Void)?
    private var hasToldWriteFailure = false

    /// 100 MB of decoded pixels, AlamofireImage's default (SDWebImage sets
    /// no limit; Kingfisher a quarter of the RAM).
    public static let defaultMemoryCostLimit = 100 * 1024 * 1024

    /// A cache over these two; most callers want `init(directory:now:)`.
    public init(memory: MemoryCache<String, Image>, disk: DiskCache) {
        self.memory = memory
        self.disk = disk
        ioQueue = OperationQueue()
        ioQueue.name = "WebImage disk"
        ioQueue.maxConcurrentOperationCount = 1
    }

    /// The usual cache: `directory` for the files (PPM, what the icons are),
    /// time read from `now`.
    public convenience init(directory: URL, now: @escaping @Sendable () -> Date = { Date() }) {
        self.init(
            memory: MemoryCache(totalCostLimit: Self.defaultMemoryCostLimit),
            disk: DiskCache(directory: directory, fileExtension: "ppm", now: now))
    }

    /// SDWebImage's `maxCacheAge` (the tutorial sets it to 100 days).
    public var maxCacheAge: TimeInterval {
        get { disk.maxAge }
        set { disk.maxAge = newValue }
    }

    /// SDWebImage's `maxCacheSize`, in bytes; nil: no limit.
    public var maxCacheSize: Int? {
        get { disk.maxSize }
        set { disk.maxSize = newValue }
    }

    /// The image for `key` if memory holds it: the one look-up cheap enough for `cellForRowAt`.
    public func imageFromMemory(forKey key: String) -> Image? {
        memory.value(forKey: key)
    }

    /// What a memory warning calls for: SDWebImage's `clearMemory`.
    public func clearMemory() {
        memory.removeAll()
    }

    /// Looks on disk, on `ioQueue`; a hit is decoded there and kept in memory
    /// too. `completion` runs on `ioQueue` with the image and its bytes, or
    /// nils; not at all if the returned operation is cancelled before it runs.
    @discardableResult
    public func queryDisk(
        forKey key: String, completion: @escaping @Sendable (Image?, Data?) -> Void
    ) -> Operation {
        let operation = BlockOperation()
        operation.addExecutionBlock { [weak operation, disk, memory] in
            guard operation?.isCancelled == false else { return }
            // Bytes that no longer decode (a damaged file) count as a miss.
            guard let data = disk.data(forKey: key), let image = Image(data: data) else {
                return completion(nil, nil)
            }
            memory.setValue(image, forKey: key, cost: image.byteCount)
            completion(image, data)
        }
        ioQueue.addOperation(operation)
        return operation
    }

    /// Keeps `image` in memory at once and, unless `toDisk` is false, its
    /// bytes on disk, on `ioQueue`.
    public func store(_ image: Image, data: Data?, forKey key: String, toDisk: Bool = true) {
        memory.setValue(image, forKey: key, cost: image.byteCount)
        guard toDisk, let data else { return }
        ioQueue.addOperation { [self] in
            do {
                try disk.store(data, forKey: key)
            } catch {
                tellWriteFailure(error)
            }
        }
    }

    private func tellWriteFailure(_ error: any Error) {
        let handler = lock.withLock { () -> (@Sendable (any Error) -> Void)? in
            guard !hasToldWriteFailure, let handler = writeFailureHandler else { return nil }
            hasToldWriteFailure = true
            return handler
        }
        handler?(error)
    }

    /// Drops expired files and trims the folder to its size, on `ioQueue`.
    public func removeExpiredFiles() {
        ioQueue.addOperation { [disk] in disk.removeExpired() }
    }
}
