import Foundation
import LessonSupport
import SlowNetwork
import TableKit

// A controller in the shape of a learner's (see CauseTests): this file is,
// to the checks, the learner's only one.

/// Exercise 3 with the icon kept on the model, shown, and then forgotten: the
/// `return cell` after showing a kept icon is left out, so `cellForRowAt`
/// goes on to the placeholder and downloads the icon again; the download
/// reloads its row, which asks for the cell again, which downloads again.
final class NoEarlyReturnController: TableViewController, LessonController, @unchecked Sendable {
    final class Entry: @unchecked Sendable {
        let name: String
        let icon: String
        var image: Image?

        init(name: String, icon: String) {
            self.name = name
            self.icon = icon
        }
    }

    let network: SlowNetwork
    let entries: [Entry]
    let queue = OperationQueue()

    required init(environment: LessonEnvironment) {
        network = environment.network
        entries = ((try? AppCatalog.load(from: environment.catalogURL).entries) ?? []).map {
            Entry(name: $0.name, icon: $0.icon)
        }
        super.init()
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        entries.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "app", for: indexPath)
        let entry = entries[indexPath.row]
        cell.textLabel.text = entry.name
        if let image = entry.image {
            cell.imageView.image = image
        }
        cell.imageView.image = Image.placeholder
        let network = network
        queue.addOperation {
            let data = URL(string: entry.icon).flatMap { try? network.data(contentsOf: $0) }
            entry.image = data.flatMap { Image(data: $0) }
            OperationQueue.main.addOperation {
                self.tableView.reloadRows(at: [indexPath])
            }
        }
        return cell
    }
}
