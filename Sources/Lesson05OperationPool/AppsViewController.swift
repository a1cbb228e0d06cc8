import Foundation
import LessonSupport
import SlowNetwork
import TableKit

/// Step 5: an operation pool. Each icon has at most one download, running or
/// waiting, at a time; at most three run at once; and the pool and the cache
/// are only touched on the main queue.
class AppsViewController: TableViewController, LessonController {
    let network: SlowNetwork
    let catalogURL: URL

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
        super.init()
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

    /// One dictionary holds every icon, so one line frees them all.
    /// Rows on screen keep theirs; the others download again when shown.
    override func didReceiveMemoryWarning() {
        imageCache.removeAll()
    }
}
