import Foundation
import WebImage

/// The tutorial's options without `SDWebImageRetryFailed` (`--no-retry-failed`):
/// a URL whose bytes were not an image is never asked for again, until the
/// app is relaunched.
final class NoRetryFailedViewController: AppsViewController {
    override var options: WebImageOptions { [.lowPriority] }
}
