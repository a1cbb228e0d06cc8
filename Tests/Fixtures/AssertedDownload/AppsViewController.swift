import Foundation
import LessonSupport
import SlowNetwork
import TableKit

// Step 3's controller as a published one writes it, sure that every download
// works: it `assert`s on the download's result as the row is reloaded. A
// failed download (offline) crashes it there, on the main queue (one thread
// at a time: two threads crashing at once can leave the Swift backtracer
// waiting for ever, and a test waiting for it); where no download fails, it
// must play to its end, whatever was still in flight when the story ended.

final class AppInfo: Decodable {
    let name: String
    let icon: String
    let download: String
    var image: Image?

    private enum CodingKeys: String, CodingKey {
        case name, icon, download
    }
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
        if let image = app.image {
            cell.imageView.image = image
            return cell
        }
        cell.imageView.image = Image.placeholder
        queue.addOperation {
            let data = URL(string: app.icon).flatMap { try? self.network.data(contentsOf: $0) }
            app.image = data.flatMap { Image(data: $0) }
            OperationQueue.main.addOperation {
                assert(data != nil, "the download of \(app.icon) failed")
                self.tableView.reloadRows(at: [indexPath])
            }
        }
        return cell
    }
}
