import Foundation
import LessonKit

exit(
    await LessonMain.run(
        10, controller: AppsViewController.self,
        variants: [
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
        ]))
