import Foundation
import LessonSupport
import SlowNetwork
import TableKit

/// Step 1: the simplest thing that could possibly work. Each icon is fetched
/// inside `cellForRowAt`, on the main queue, the moment its row appears.
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

        // The problem this step shows: the download blocks the main queue.
        // Nothing else runs there (no frame, no touch) until it returns.
        let data = URL(string: app.icon).flatMap { try? network.data(contentsOf: $0) }
        cell.imageView.image = data.flatMap { Image(data: $0) }
        return cell
    }
}
