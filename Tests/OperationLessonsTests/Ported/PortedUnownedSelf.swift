import Foundation
import LessonSupport
import SlowNetwork
import TableKit

// A controller in the shape of a learner's (see PortedTutorialTests): this
// file is, to the checks, the learner's only one.

/// A learner's fix for the kept controller: `[unowned self]` in both of
/// the download's closures, and a pool and a cache on the main queue. Not
/// played in process: leaving while a download runs crashes it.
final class UnownedSelfController: TableViewController, LessonController, @unchecked Sendable {
    let network: SlowNetwork
    let rows: [AppEntry]
    let queue = OperationQueue()
    var cache: [String: Image] = [:]
    var pending: [String: Operation] = [:]

    required init(environment: LessonEnvironment) {
        network = environment.network
        rows = (try? AppCatalog.load(from: environment.catalogURL).entries) ?? []
        super.init()
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        rows.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
        let row = rows[indexPath.row]
        cell.textLabel.text = row.name
        if let image = cache[row.icon] {
            cell.imageView.image = image
            return cell
        }
        cell.imageView.image = Image.placeholder
        guard pending[row.icon] == nil, let url = URL(string: row.icon) else { return cell }
        let operation = BlockOperation { [unowned self] in
            let image = (try? self.network.data(contentsOf: url)).flatMap { Image(data: $0) }
            OperationQueue.main.addOperation { [unowned self] in
                self.pending[row.icon] = nil
                guard let image else { return }
                self.cache[row.icon] = image
                self.tableView.reloadRows(at: [indexPath])
            }
        }
        pending[row.icon] = operation
        queue.addOperation(operation)
        return cell
    }

    override func didReceiveMemoryWarning() {
        cache.removeAll()
    }
}
