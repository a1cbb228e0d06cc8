import Foundation
import LessonSupport
import TableKit

/// Step 6 with its files named as a learner often names them: by the URL's
/// `hashValue`. Swift seeds that per process, so a relaunched app looks for
/// every icon under another name: on a phone it downloads them all again at
/// every launch, and its caches folder grows by a screenful each time.
final class HashNamedViewController: AppsViewController {
    override func cacheFileName(for icon: String) -> String { "icon-\(icon.hashValue).png" }
}

/// Step 6 with no disk cache and its memory cache in a static, shared by
/// every controller of the process: it dies with the process, as a phone's
/// relaunch shows.
final class StaticMemoryViewController: AppsViewController {
    static var shared: [String: Image] = [:]

    override var imageCache: [String: Image] {
        get { Self.shared }
        set { Self.shared = newValue }
    }

    /// Nowhere on disk: every write fails, every read misses.
    override func cacheFile(for icon: String) -> URL { URL(fileURLWithPath: "/dev/null/no-disk-cache") }
}
