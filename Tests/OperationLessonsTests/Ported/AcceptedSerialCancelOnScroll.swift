import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit

// A controller kept aside for acceptance (see AcceptanceTests), written from
// a description of a published sample, not copied: this file is, to the
// checks, the learner's only file.

/// A download queue of its own kind that runs one download at a time and
/// drops everything queued whenever the user starts a drag; rows on screen
/// are asked for again once the table comes to rest. Icons are kept in a
/// dictionary by URL, touched on the main queue only; a finished download
/// that was cancelled meanwhile is thrown away.
final class OneAtATimeQueue: OperationQueue, @unchecked Sendable {
    override init() {
        super.init()
        maxConcurrentOperationCount = 1
        name = "one icon at a time"
    }
}

final class SerialCancelOnScrollController: TableViewController, LessonController, @unchecked Sendable {
    let network: SlowNetwork
    let rows: [AppEntry]
    let downloads = OneAtATimeQueue()
    /// Main queue only: the icons, and the URLs whose download is queued or running.
    var icons: [String: Image] = [:]
    var pending: Set<String> = []

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
        let entry = rows[indexPath.row]
        cell.textLabel.text = entry.name
        cell.detailTextLabel.text = entry.download
        if let icon = icons[entry.icon] {
            cell.imageView.image = icon
        } else {
            cell.imageView.image = Image.placeholder
            load(indexPath)
        }
        return cell
    }

    func load(_ indexPath: IndexPath) {
        let entry = rows[indexPath.row]
        guard icons[entry.icon] == nil, !pending.contains(entry.icon), let url = URL(string: entry.icon) else { return }
        pending.insert(entry.icon)
        let network = self.network
        let operation = BlockOperation()
        operation.addExecutionBlock { [weak self, weak operation] in
            guard let operation, !operation.isCancelled else { return }
            let image = (try? network.data(contentsOf: url)).flatMap { Image(data: $0) }
            OperationQueue.main.addOperation { [weak self] in
                guard let self else { return }
                self.pending.remove(entry.icon)
                guard !operation.isCancelled, let image else { return }
                self.icons[entry.icon] = image
                if self.tableView.indexPathsForVisibleRows.contains(indexPath) {
                    self.tableView.reloadRows(at: [indexPath])
                }
            }
        }
        downloads.addOperation(operation)
    }

    override func scrollViewWillBeginDragging(_ tableView: TableView) {
        downloads.cancelAllOperations()
        pending.removeAll()
    }

    override func scrollViewDidEndDragging(_ tableView: TableView, willDecelerate decelerate: Bool) {
        if !decelerate { loadVisibleRows() }
    }

    override func scrollViewDidEndDecelerating(_ tableView: TableView) {
        loadVisibleRows()
    }

    func loadVisibleRows() {
        tableView.indexPathsForVisibleRows.forEach(load)
    }

    override func didReceiveMemoryWarning() {
        downloads.cancelAllOperations()
        pending.removeAll()
        icons.removeAll()
    }
}
