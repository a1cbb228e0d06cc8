import Foundation
import SlowNetwork

/// How a load behaves: SDWebImage's `SDWebImageOptions`, the ones this library has.
public struct WebImageOptions: OptionSet, Sendable {
    public let rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Ask for a URL even when it is in the failed-URL list. Without it, a URL
    /// whose download once gave bytes that are not an image is never asked for
    /// again (`WebImageError.isPermanent`) until the app is relaunched.
    public static let retryFailed = WebImageOptions(rawValue: 1 << 0)
    /// Start the download only once the user has let go of the table: held
    /// back while any table is dragged or gliding (what step 7 did by
    /// suspending its queue, as an option), and queued behind normal loads.
    public static let lowPriority = WebImageOptions(rawValue: 1 << 1)
    /// Queued before normal loads.
    public static let highPriority = WebImageOptions(rawValue: 1 << 2)
    /// A cached image is shown, and downloaded again all the same; if the
    /// server's bytes differ from the cached ones, `completed` is called a
    /// second time with the new image (cache type none).
    public static let refreshCached = WebImageOptions(rawValue: 1 << 3)
    /// Keep the downloaded image in memory only, not on disk.
    public static let cacheMemoryOnly = WebImageOptions(rawValue: 1 << 4)
}

/// Where a loaded image came from: SDWebImage's `SDImageCacheType`.
public enum ImageCacheType: String, Sendable, CustomStringConvertible {
    /// Downloaded just now (or not loaded at all).
    case none
    case memory
    case disk

    public var description: String { rawValue }
}

/// Why a load gave no image.
public enum WebImageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No URL to load.
    case invalidURL
    /// The URL failed before with a permanent error and `.retryFailed` was not given.
    case failedBefore
    /// The download failed: offline, connection lost, an HTTP error…
    case network(NetworkError)
    /// The bytes arrived but are not an image (a corrupt or truncated body).
    case badImageData

    /// Whether asking again is pointless, so the URL goes on the failed-URL
    /// list: bad image data and invalid URLs. Every error this network can give
    /// (offline, a lost connection, an HTTP status, a cancel) may be gone the
    /// next time, and SDWebImage 5 (`shouldBlockFailedURLWithURL:error:`) spares
    /// those too; it blocks the other URL errors, a TLS failure among them.
    public var isPermanent: Bool {
        switch self {
        case .invalidURL, .badImageData: true
        case .failedBefore, .network: false
        }
    }

    public var description: String {
        switch self {
        case .invalidURL: "no URL"
        case .failedBefore: "the URL failed before (pass .retryFailed to ask again)"
        case .network(let error): "the download failed: \(error)"
        case .badImageData: "the bytes are not an image"
        }
    }
}

/// Called with the bytes received so far and the body's size, on a
/// background queue (the network's delivery queue).
public typealias ImageProgress = @Sendable (_ receivedSize: Int, _ expectedSize: Int) -> Void
