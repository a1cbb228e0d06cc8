import Foundation
import TableKit

/// The one call an app makes: SDWebImage's `sd_setImageWithURL:placeholderImage:options:progress:completed:`.
extension ImageView {
    private static let loadKey = "WebImage.currentLoad"

    /// Shows `placeholder`, then the image at `url` when it is loaded
    /// (`ImageManager.loadImage`), and shows the download's progress meanwhile
    /// (`ImageView.progress`, which the terminal screen draws as a bar).
    ///
    /// A new call cancels the view's previous load first: its own load only
    /// (its `LoadToken`), never a download another view is waiting for. So a
    /// reused cell cannot receive the image of the row it showed before, and
    /// does not take that row's image from anyone else. A call for the URL the
    /// view is still loading keeps that load (a row scrolled out and back in
    /// its own cell) and hands it the new callbacks.
    ///
    /// Main queue only, like all of UIKit. `progress` and `completed` run on
    /// the main queue, and never for a load that was replaced or cancelled.
    public func setImage(
        with url: URL?, placeholder: Image? = nil, options: WebImageOptions = [], manager: ImageManager,
        progress: ((_ receivedSize: Int, _ expectedSize: Int) -> Void)? = nil,
        completed: (
            (_ image: Image?, _ error: WebImageError?, _ cacheType: ImageCacheType, _ imageURL: URL?) -> Void
        )? =
            nil
    ) {
        if let current = associatedObject(forKey: Self.loadKey) as? CurrentLoad, url != nil, current.url == url,
            !current.isDone
        {
            current.progress = progress
            current.completed = completed
            return
        }
        cancelCurrentImageLoad()
        image = placeholder
        self.progress = nil
        let load = CurrentLoad(url: url, progress: progress, completed: completed)
        setAssociatedObject(load, forKey: Self.loadKey)
        let view = MainQueueBound(self)
        let token = manager.loadImage(
            with: url, options: options,
            progress: { received, expected in
                OperationQueue.main.addOperation {
                    let view = view.value
                    guard view.associatedObject(forKey: Self.loadKey) === load, !load.isDone else { return }
                    view.progress = expected > 0 ? Double(received) / Double(expected) : nil
                    load.progress?(received, expected)
                }
            },
            completed: { image, error, cacheType, url in
                let view = view.value
                guard view.associatedObject(forKey: Self.loadKey) === load else { return }
                load.isDone = true
                if let image { view.image = image }
                view.progress = nil
                load.completed?(image, error, cacheType, url)
            })
        load.token = token
        // Not from memory, so it loads: an empty bar until the bytes come.
        if !load.isDone { self.progress = 0 }
    }

    /// Cancels the view's load, if one is under way (SDWebImage's `sd_cancelCurrentImageLoad`).
    public func cancelCurrentImageLoad() {
        guard let load = associatedObject(forKey: Self.loadKey) as? CurrentLoad else { return }
        setAssociatedObject(nil, forKey: Self.loadKey)
        load.token?.cancel()
        if !load.isDone { progress = nil }
    }

    /// The URL of the view's current (or last) load (SDWebImage's `sd_imageURL`).
    public var imageURL: URL? {
        (associatedObject(forKey: Self.loadKey) as? CurrentLoad)?.url
    }
}

/// What an image view remembers of its load. Main queue only (its callbacks
/// are sent across queues, and read it only once they are back on it).
private final class CurrentLoad: @unchecked Sendable {
    let url: URL?
    var token: LoadToken?
    /// The caller's callbacks: the latest call's, for the same URL.
    var progress: ((Int, Int) -> Void)?
    var completed: ((Image?, WebImageError?, ImageCacheType, URL?) -> Void)?
    /// `completed` has run (the image, or the error, is in).
    var isDone = false

    init(
        url: URL?, progress: ((Int, Int) -> Void)?, completed: ((Image?, WebImageError?, ImageCacheType, URL?) -> Void)?
    ) {
        self.url = url
        self.progress = progress
        self.completed = completed
    }
}

/// A value handed across queues that is only ever opened on the main queue:
/// UIKit objects and the app's main-queue closures are not `Sendable`, and
/// the checks above keep them on the one queue where that is safe.
struct MainQueueBound<Value>: @unchecked Sendable {
    private let stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        assert(MainQueue.isCurrent, "opened off the main queue")
        return stored
    }
}
