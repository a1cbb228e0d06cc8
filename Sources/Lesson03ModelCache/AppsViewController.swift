import Foundation
import LessonSupport
import SlowNetwork
import TableKit

/// Step 3: the downloaded icon is kept on the model, and the finished
/// download reloads its row instead of touching a cell that may show another row by now.
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

        // An icon downloaded once is kept on the model.
        if let image = app.image {
            cell.imageView.image = image
            return cell
        }
        cell.imageView.image = Image.placeholder
        queue.addOperation {
            let data = URL(string: app.icon).flatMap { try? self.network.data(contentsOf: $0) }
            app.image = data.flatMap { Image(data: $0) }
            OperationQueue.main.addOperation {
                // Reload the row, whatever cell shows it now.
                // Still broken: offline, the image is nil, the reload asks for
                // the cell again, which downloads again, forever.
                self.tableView.reloadRows(at: [indexPath])
            }
        }
        return cell
    }
}
