import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit

// A controller ported from a published tutorial (see PortedTutorialTests):
// this file is, to the checks, the learner's only file.

/// The "thread-safe cache" articles' pattern: an `ImageStore` whose
/// dictionary only a private serial `DispatchQueue` touches (`sync` to read,
/// `async` to write), filled from the download threads; and the disk cache
/// of the sandbox tutorials, each icon's bytes written on a background queue
/// of their own under a name hashed from its whole URL (djb2, in hex).
final class SerialQueueStoreController: TableViewController, LessonController, @unchecked Sendable {
    final class ImageStore: @unchecked Sendable {
        private let isolation = DispatchQueue(label: "image-store")
        private var images: [String: Image] = [:]

        func image(for key: String) -> Image? {
            isolation.sync { images[key] }
        }

        func insert(_ image: Image, for key: String) {
            isolation.async { self.images[key] = image }
        }

        func removeAll() {
            isolation.async { self.images.removeAll() }
        }
    }

    let network: SlowNetwork
    let folder: URL
    let apps: [AppEntry]
    let store = ImageStore()
    let fetchQueue = OperationQueue()
    let diskWriter = DispatchQueue(label: "disk-writer", qos: .utility)
    /// The icons on their way, main queue only.
    var pending: [String: Operation] = [:]

    required init(environment: LessonEnvironment) {
        network = environment.network
        folder = environment.cachesDirectory
        apps = (try? AppCatalog.load(from: environment.catalogURL).entries) ?? []
        fetchQueue.maxConcurrentOperationCount = 3
        super.init()
    }

    /// djb2 of the whole URL: the same name in every run, one per URL.
    func fileURL(for link: String) -> URL {
        var hash: UInt64 = 5381
        for byte in link.utf8 { hash = (hash &<< 5) &+ hash &+ UInt64(byte) }
        return folder.appendingPathComponent(String(hash, radix: 16) + ".img")
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        apps.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "app", for: indexPath)
        let app = apps[indexPath.row]
        cell.textLabel.text = app.name
        cell.detailTextLabel.text = app.download
        if let image = store.image(for: app.icon) {
            cell.imageView.image = image
            return cell
        }
        let file = fileURL(for: app.icon)
        if let bytes = try? Data(contentsOf: file), let image = Image(data: bytes) {
            store.insert(image, for: app.icon)
            cell.imageView.image = image
            return cell
        }
        cell.imageView.image = Image.placeholder
        guard pending[app.icon] == nil, let url = URL(string: app.icon) else { return cell }
        let network = self.network
        let store = self.store
        let diskWriter = self.diskWriter
        let folder = self.folder
        let fetch = BlockOperation {
            guard let bytes = try? network.data(contentsOf: url), let image = Image(data: bytes) else {
                OperationQueue.main.addOperation { [weak self] in self?.pending[app.icon] = nil }
                return
            }
            store.insert(image, for: app.icon)
            diskWriter.async {
                try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try? bytes.write(to: file, options: .atomic)
            }
            OperationQueue.main.addOperation { [weak self] in
                self?.pending[app.icon] = nil
                self?.tableView.reloadRows(at: [indexPath])
            }
        }
        pending[app.icon] = fetch
        fetchQueue.addOperation(fetch)
        return cell
    }

    override func didReceiveMemoryWarning() {
        store.removeAll()
    }
}
