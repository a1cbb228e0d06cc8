import Foundation
import LessonSupport
import WebImage

/// The tutorial's options without `SDWebImageRetryFailed` (`--no-retry-failed`):
/// a URL whose bytes were not an image is never asked for again, until the
/// app is relaunched.
final class NoRetryFailedViewController: AppsViewController {
    override var options: WebImageOptions { [.lowPriority] }
}

extension AppsViewController {
    /// The library's traps, each played by a flag (`swift run Lesson10WebImage --naive-cancel`).
    static var variants: [LessonVariant] {
        [
            LessonVariant(
                flag: "naive-cancel",
                help: "a reused cell cancels the shared download itself, whoever else waits for it",
                controller: NaiveCancelViewController.self),
            LessonVariant(
                flag: "no-retry-failed",
                help: "without .retryFailed: a URL whose bytes were not an image is never asked for again",
                controller: NoRetryFailedViewController.self),
            LessonVariant(
                flag: "small-disk-cache",
                help: "a disk cache of 8,000 bytes whose files last 5 story seconds after their last use",
                controller: SmallDiskCacheViewController.self),
        ]
    }
}
