import Foundation
import LessonSupport
import SlowNetwork
import TableKit

// Step 5's controller as a learner writes it who trusts every download to
// work: `downloadFinished` force-unwraps the image. Each failed download
// (offline, or row 2's first try in fail-once) crashes the program there, on
// the main queue, in this file; every other scenario plays as step 5's.

struct AppInfo: Decodable {
    let name: String
    let icon: String
    let download: String
}

class UnwrappedImageViewController: TableViewController, LessonController {
    let network: SlowNetwork
    let catalogURL: URL

    lazy var apps: [AppInfo] = {
        guard let data = try? Data(contentsOf: catalogURL),
            let apps = try? PropertyListDecoder().decode([AppInfo].self, from: data)
        else { return [] }
        return apps
    }()

    lazy var queue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 3
        return queue
    }()

    var imageCache: [String: Image] = [:]
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
        if operations[app.icon] != nil {
            return cell
        }
        let network = self.network
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

    func downloadFinished(icon: String, image: Image?, at indexPath: IndexPath) {
        operations[icon] = nil
        imageCache[icon] = image!
        tableView.reloadRows(at: [indexPath])
    }

    override func didReceiveMemoryWarning() {
        imageCache.removeAll()
    }
}
