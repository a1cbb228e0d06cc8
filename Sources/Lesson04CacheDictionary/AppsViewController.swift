import Foundation
import LessonSupport
import SlowNetwork
import TableKit

/// Step 4: the icons live in one dictionary owned by the controller, keyed by
/// URL, so a memory warning can empty it in one line.
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

    /// One queue for every download, made the first time it is needed.
    lazy var queue = OperationQueue()

    /// Every downloaded icon, by URL: one place to empty when memory runs low.
    var imageCache: [String: Image] = [:]

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
        queue.addOperation {
            let data = URL(string: app.icon).flatMap { try? self.network.data(contentsOf: $0) }
            // Not thread safe: the dictionary is written here, on a download
            // thread, while the main queue reads it.
            self.imageCache[app.icon] = data.flatMap { Image(data: $0) }
            OperationQueue.main.addOperation {
                // Still broken: offline, the image is nil, the reload asks for
                // the cell again, which downloads again, forever.
                self.tableView.reloadRows(at: [indexPath])
            }
        }
        return cell
    }

    /// One dictionary holds every icon, so one line frees them all.
    /// Rows on screen keep theirs; the others download again when shown.
    override func didReceiveMemoryWarning() {
        imageCache.removeAll()
    }
}
