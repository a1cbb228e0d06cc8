import Foundation
import LessonSupport
import WebImage

/// The downloader as a library first writes it (`--naive-cancel`): a caller
/// that gives up cancels the download itself, whoever else waits for it.
/// SDWebImage did this until issue #1576: a reused cell took the image from
/// a row still on screen that shows the same picture.
final class NaiveCancelViewController: AppsViewController {
    override class func makeImageManager(_ environment: LessonEnvironment) -> ImageManager {
        let clock = environment.network.clock
        return ImageManager(
            imageCache: ImageCache(
                directory: environment.cachesDirectory, now: { Date(timeIntervalSince1970: clock.now.seconds) }),
            imageDownloader: NaiveCancelDownloader(network: environment.network))
    }
}

final class NaiveCancelDownloader: ImageDownloader, @unchecked Sendable {
    override func cancel(_ token: DownloadToken) {
        token.operation?.cancel()
    }
}
