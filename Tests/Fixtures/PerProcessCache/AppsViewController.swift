import Foundation
import LessonSupport
import SlowNetwork
import TableKit

/// Step 6: a disk cache in the app's Caches folder (the "sandbox"). An icon
/// is looked for in memory, then on disk, then on the network; every download
/// is written to disk, so a relaunch, even offline, finds it there.
class AppsViewController: TableViewController, LessonController {
    let network: SlowNetwork
    let catalogURL: URL
    /// This app's Caches folder: what is written here survives a relaunch.
    let cachesDirectory: URL

    /// The model, loaded the first time the table asks for it.
    lazy var apps: [AppInfo] = {
        guard let data = try? Data(contentsOf: catalogURL),
            let apps = try? PropertyListDecoder().decode([AppInfo].self, from: data)
        else { return [] }
        return apps
    }()

    /// One queue for every download, made the first time it is needed; at
    /// most three downloads at once, as the tutorials set it.
    lazy var queue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 3
        return queue
    }()

    /// Every downloaded icon, by URL: one place to empty when memory runs low.
    /// Read and written on the main queue only.
    var imageCache: [String: Image] = [:]

    /// The operation pool: the download under way for each icon URL. Main queue only.
    var operations: [String: Operation] = [:]

    required init(environment: LessonEnvironment) {
        network = environment.network
        catalogURL = environment.catalogURL
        cachesDirectory = environment.cachesDirectory
        super.init()
        // If the folder cannot be made or written (a read-only disk, a file
        // in its way), every write below fails and the app downloads as step 5
        // did. Say so once, here, rather than failing quietly on every icon.
        let made =
            (try? FileManager.default.createDirectory(at: cachesDirectory, withIntermediateDirectories: true)) != nil
        if !made || !FileManager.default.isWritableFile(atPath: cachesDirectory.path) {
            let notice = "no disk cache: cannot write to \(cachesDirectory.path); icons are kept in memory only\n"
            FileHandle.standardError.write(Data(notice.utf8))
        }
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        apps.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "app", for: indexPath)
        let app = apps[indexPath.row]
        cell.textLabel.text = app.name
        cell.detailTextLabel.text = app.download

        if let image = imageCache[app.icon] {
            cell.imageView.image = image
            return cell
        }
        // Not in memory? Look on disk before the network. The tutorials read it
        // right here, on the main queue (the lesson says what that costs). A
        // damaged file does not decode and counts as a miss.
        let file = cacheFile(for: app.icon)
        if let data = try? Data(contentsOf: file), let image = Image(data: data) {
            imageCache[app.icon] = image
            cell.imageView.image = image
            return cell
        }
        cell.imageView.image = Image.placeholder
        // This icon is already on its way; don't ask twice.
        if operations[app.icon] != nil {
            return cell
        }
        let network = self.network
        // `[weak self]`: the queue holds the operation, the operation holds this
        // block; a strong `self` here would hold the controller until the
        // download ends, long after the user has left.
        let operation = BlockOperation { [weak self] in
            let data = URL(string: app.icon).flatMap { try? network.data(contentsOf: $0) }
            let image = data.flatMap { Image(data: $0) }
            // Keep the bytes on disk, on this download thread. `.atomic` writes a
            // temporary file and renames it into place, so a crash mid-write never
            // leaves half an icon under the real name. Only bytes that decoded
            // are kept: never cache garbage. The folder may have gone since
            // launch (the user cleared it to free space): make it again.
            if let data, image != nil {
                try? FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try? data.write(to: file, options: .atomic)
            }
            OperationQueue.main.addOperation { [weak self] in
                self?.downloadFinished(icon: app.icon, image: image, at: indexPath)
            }
        }
        operations[app.icon] = operation
        queue.addOperation(operation)
        return cell
    }

    /// Every download ends here, on the main queue, whether it worked or not.
    func downloadFinished(icon: String, image: Image?, at indexPath: IndexPath) {
        // Out of the pool whatever happened ("if there is an if, there must be
        // an else"), so a failed icon is tried again the next time its row is shown.
        operations[icon] = nil
        // No icon, no reload. Offline, a reload asks for the cell again, which
        // downloads again, which fails again, forever.
        guard let image else { return }
        // The cache is written here, on the main queue, where it is read; no
        // download thread touches it any more.
        imageCache[icon] = image
        tableView.reloadRows(at: [indexPath])
    }

    /// Where an icon lives on disk.
    func cacheFile(for icon: String) -> URL {
        cachesDirectory.appendingPathComponent(cacheFileName(for: icon))
    }

    /// Named by a hash of the whole URL, not by its last path component as the
    /// tutorials do (`…/qq/icon.png` and `…/wechat/icon.png` would share a file).
    /// FNV-1a, 64 bits, in hex: the same URL gives the same name in every run
    /// (Swift's `hashValue` is seeded per process, so it cannot name files),
    /// two URLs practically never share one, and a name made of hex digits
    /// cannot contain "/" or "..". `.ppm` because that is what the bytes are:
    /// open a cached icon in any image viewer.
    func cacheFileName(for icon: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in icon.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + ".ppm"
    }

    /// Memory only: the disk cache is what survives, so it stays.
    override func didReceiveMemoryWarning() {
        imageCache.removeAll()
    }
}
