import Foundation
import LessonSupport
import WebImage

/// A disk cache small and short-lived enough to see its limits in one run
/// (`--small-disk-cache`): 8,000 bytes (ten icons), files kept 5 story
/// seconds after their last use, where the default keeps them a week.
final class SmallDiskCacheViewController: AppsViewController {
    override class func makeImageManager(_ environment: LessonEnvironment) -> ImageManager {
        let manager = super.makeImageManager(environment)
        manager.imageCache.maxCacheSize = 8000
        manager.imageCache.maxCacheAge = 5
        return manager
    }
}
