import Foundation
import LessonSupport
import SlowNetwork
import TableKit
import WebImage

/// Step 10: step 7's app with its download code replaced by one call into a
/// library (`Sources/WebImage`), as the tutorial replaces its own with
/// SDWebImage's `sd_setImageWithURL:placeholderImage:options:progress:completed:`.
/// The caches, the operation pool, the custom operation and the pause while
/// dragging are all still there, inside the library, each grown up a little.
class AppsViewController: TableViewController, LessonController {
    let catalogURL: URL
    /// The library: memory and disk caches, the downloader, the failed URLs.
    /// SDWebImage's is one `sharedManager` per process; here each launch of
    /// the app makes its own, on the network and clock of its run.
    let imageManager: ImageManager

    /// The model, loaded the first time the table asks for it.
    lazy var apps: [AppInfo] = {
        guard let data = try? Data(contentsOf: catalogURL),
            let apps = try? PropertyListDecoder().decode([AppInfo].self, from: data)
        else { return [] }
        return apps
    }()

    /// The tutorial's options: `SDWebImageRetryFailed | SDWebImageLowPriority`.
    var options: WebImageOptions { [.retryFailed, .lowPriority] }

    required init(environment: LessonEnvironment) {
        catalogURL = environment.catalogURL
        imageManager = Self.makeImageManager(environment)
        super.init()
        // A folder the library cannot write (read-only, a full disk) leaves
        // the icons in memory only, and a relaunch downloads them again. Say
        // so once, as steps 6 and 7 do, rather than failing quietly on every icon.
        let folder = environment.cachesDirectory
        imageManager.imageCache.onFirstDiskWriteFailure = { _ in
            let notice = "no disk cache: cannot write to \(folder.path); icons are kept in memory only\n"
            FileHandle.standardError.write(Data(notice.utf8))
        }
    }

    /// The manager, its files in this app's Caches folder, their age told by
    /// the story's clock (so a run's figures are the same on any machine).
    class func makeImageManager(_ environment: LessonEnvironment) -> ImageManager {
        let clock = environment.network.clock
        return ImageManager(
            network: environment.network, cachesDirectory: environment.cachesDirectory,
            now: { Date(timeIntervalSince1970: clock.now.seconds) })
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        apps.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "app", for: indexPath)
        let app = apps[indexPath.row]
        cell.textLabel.text = app.name
        cell.detailTextLabel.text = app.download
        // The whole of step 7's download code, and of the tutorial's
        // section 四: the view cancels what it loaded before, shows the
        // placeholder, and loads from memory, disk or network.
        cell.imageView.setImage(
            with: URL(string: app.icon), placeholder: .placeholder, options: options, manager: imageManager)
        return cell
    }

    /// The tutorial's memory-warning clean-up: cancel the loads, empty the
    /// memory cache. The disk cache stays.
    override func didReceiveMemoryWarning() {
        imageManager.cancelAll()
        imageManager.imageCache.clearMemory()
    }
}
