import Foundation
import LessonSupport
import SlowNetwork
import TableKit

// A learner's exercise 2 that waits before each download "to go easy on the
// server", for hours: a real `Thread.sleep` on a background queue, which no
// story clock can hurry. The main queue stays free, but the app never goes
// quiet, so the story cannot move on and its hang guard stops the run.

struct AppInfo: Decodable {
    let name: String
    let icon: String
    let download: String
}

class AppsViewController: TableViewController, LessonController {
    let network: SlowNetwork
    let catalogURL: URL

    lazy var apps: [AppInfo] = {
        guard let data = try? Data(contentsOf: catalogURL),
            let apps = try? PropertyListDecoder().decode([AppInfo].self, from: data)
        else { return [] }
        return apps
    }()

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
        cell.imageView.image = Image.placeholder
        queue.addOperation {
            Thread.sleep(forTimeInterval: 4 * 3600)
            let data = URL(string: app.icon).flatMap { try? self.network.data(contentsOf: $0) }
            let image = data.flatMap { Image(data: $0) }
            OperationQueue.main.addOperation {
                cell.imageView.image = image
            }
        }
        return cell
    }
}
