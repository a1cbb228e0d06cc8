import Foundation
import LessonSupport

/// The tutorials' file name (`--last-component-names`): the URL's last path
/// component. `…/qq/icon.png` and `…/wechat/icon.png` are both `icon.png`, so
/// the second download overwrites the first and, after a relaunch, both rows
/// show the same icon. And a crafted URL such as `…/..%2F..%2Fx.ppm`, whose last
/// component decodes to `../../x.ppm`, writes outside the Caches folder.
final class LastComponentNamesViewController: AppsViewController {
    override func cacheFileName(for icon: String) -> String {
        URL(string: icon)?.lastPathComponent ?? icon
    }
}

extension AppsViewController {
    /// `swift run Lesson06SandboxCache --last-component-names` plays the tutorials' file names,
    /// `--disk-hit-downloads` and `--disk-hit-not-kept` the look-ups of tutorials 002 and 003,
    /// `--write-on-main-queue` tutorial 002's write.
    static var variants: [LessonVariant] {
        [
            LessonVariant(
                flag: "last-component-names",
                help:
                    "the tutorials' file names (the URL's last path component): …/qq/icon.png and …/wechat/icon.png collide",
                controller: LastComponentNamesViewController.self),
            LessonVariant(
                flag: "disk-hit-downloads",
                help: "tutorial 002's look-up: an icon found on disk is shown and downloaded all the same",
                controller: DiskHitDownloadsViewController.self),
            LessonVariant(
                flag: "disk-hit-not-kept",
                help: "tutorial 003's look-up: an icon found on disk is shown, not kept in memory, read again at every showing",
                controller: DiskHitNotKeptViewController.self),
            LessonVariant(
                flag: "write-on-main-queue",
                help: "tutorial 002's write: each downloaded icon is encoded again and written to disk on the main queue",
                controller: WriteOnMainQueueViewController.self),
        ]
    }
}
