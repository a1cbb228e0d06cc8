import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit

// A controller written the way learners "fix" the offline loop (see
// PortedTutorialTests): this file is, to the checks, the learner's only file.

/// Step 5's pool and cache, with the reload-on-failure loop "fixed" by
/// retrying inside the download instead: the operation asks again until the
/// icon comes, or the screen is gone. Offline it never comes, so each running
/// operation asks again and again on its own thread, with no reload at all,
/// and the ones behind it never start. (A learner's loop with no end at all,
/// `while image == nil`, would spin on in the test process after its run:
/// the workbench plays that one, where the process ends with the scenario.)
final class RetryForeverController: TableViewController, LessonController, @unchecked Sendable {
    let network: SlowNetwork
    let apps: [AppEntry]
    let queue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 3
        return queue
    }()
    var imageCache: [String: Image] = [:]
    var operations: [String: Operation] = [:]

    required init(environment: LessonEnvironment) {
        network = environment.network
        apps = (try? AppCatalog.load(from: environment.catalogURL).entries) ?? []
        super.init()
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        apps.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "app", for: indexPath)
        let app = apps[indexPath.row]
        cell.textLabel.text = app.name
        if let image = imageCache[app.icon] {
            cell.imageView.image = image
            return cell
        }
        cell.imageView.image = Image.placeholder
        guard operations[app.icon] == nil, let url = URL(string: app.icon) else { return cell }
        let network = self.network
        let operation = BlockOperation { [weak self] in
            var image: Image?
            // Keep trying until the icon comes: a failed download is only a bad moment.
            while image == nil, self != nil {
                image = (try? network.data(contentsOf: url)).flatMap { Image(data: $0) }
            }
            let icon = image
            OperationQueue.main.addOperation { [weak self] in
                self?.operations[app.icon] = nil
                self?.imageCache[app.icon] = icon
                self?.tableView.reloadRows(at: [indexPath])
            }
        }
        operations[app.icon] = operation
        queue.addOperation(operation)
        return cell
    }

    override func didReceiveMemoryWarning() {
        imageCache.removeAll()
    }
}
