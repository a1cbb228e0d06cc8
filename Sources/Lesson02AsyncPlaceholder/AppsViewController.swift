import Foundation
import LessonSupport
import SlowNetwork
import TableKit

/// Step 2: the download moves to a background queue; the cell shows a
/// placeholder at once and the icon when it arrives, set on the main queue.
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

        // Show a placeholder now, download on a background queue, and come
        // back to the main queue to touch the UI.
        cell.imageView.image = Image.placeholder
        queue.addOperation {
            let data = URL(string: app.icon).flatMap { try? self.network.data(contentsOf: $0) }
            let image = data.flatMap { Image(data: $0) }
            OperationQueue.main.addOperation {
                // Still broken: `cell` is whatever row it shows *now*. If it was
                // reused while we downloaded, this puts our icon in another row.
                cell.imageView.image = image
            }
        }
        return cell
    }
}
