import Foundation
import LessonSupport
import SlowNetwork
import TableKit

// Step 5's controller as a learner breaks it: the cache write moved back
// into the operation, onto the download thread (issue 24's "classic race").
// Three downloads at once write the dictionary the main queue reads.

class CacheInOperationViewController: TableViewController, LessonController {
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
            self?.imageCache[app.icon] = image
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
        guard image != nil else { return }
        tableView.reloadRows(at: [indexPath])
    }

    override func didReceiveMemoryWarning() {
        imageCache.removeAll()
    }
}
