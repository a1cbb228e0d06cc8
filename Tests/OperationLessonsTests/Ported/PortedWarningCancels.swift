import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit

// A controller in the shape of a learner's (see PortedTutorialTests): this
// file is, to the checks, the learner's only file.

/// Exercise 7 as many learners first write it: an `Operation` subclass that
/// looks at `isCancelled` once, before the fetch, and hands its icon to a
/// closure; a memory warning that cancels the queue, empties the pool and the
/// icons; the queue held while the finger is down and while the table glides;
/// files in the Caches folder named by the percent-escaped URL.
class IconFetchOperation: Operation, @unchecked Sendable {
    let url: URL
    let network: SlowNetwork
    /// Runs on the main queue with the icon's bytes, or nil.
    var onFinish: (@Sendable (Data?) -> Void)?

    init(url: URL, network: SlowNetwork) {
        self.url = url
        self.network = network
    }

    override func main() {
        guard !isCancelled else { return }
        let data = try? network.data(contentsOf: url)
        let onFinish = self.onFinish
        OperationQueue.main.addOperation { onFinish?(data) }
    }
}

class WarningCancelsController: TableViewController, LessonController, @unchecked Sendable {
    let network: SlowNetwork
    let folder: URL
    let entries: [AppEntry]
    let downloads = OperationQueue()
    var inFlight: [URL: IconFetchOperation] = [:]
    var icons: [URL: Image] = [:]

    required init(environment: LessonEnvironment) {
        network = environment.network
        folder = environment.cachesDirectory
        entries = (try? AppCatalog.load(from: environment.catalogURL).entries) ?? []
        downloads.maxConcurrentOperationCount = 2
        super.init()
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func diskFile(_ url: URL) -> URL {
        folder.appendingPathComponent(url.absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "icon")
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        entries.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "entry", for: indexPath)
        cell.textLabel.text = entries[indexPath.row].name
        guard let url = URL(string: entries[indexPath.row].icon) else { return cell }
        if let icon = icons[url] {
            cell.imageView.image = icon
            return cell
        }
        if let data = try? Data(contentsOf: diskFile(url)), let icon = Image(data: data) {
            icons[url] = icon
            cell.imageView.image = icon
            return cell
        }
        cell.imageView.image = Image.placeholder
        guard inFlight[url] == nil else { return cell }
        let operation = makeOperation(url)
        let file = diskFile(url)
        operation.onFinish = { [weak self] data in
            guard let self else { return }
            self.inFlight[url] = nil
            guard let data, let icon = Image(data: data) else { return }
            try? data.write(to: file, options: .atomic)
            self.icons[url] = icon
            self.tableView.reloadRows(at: [indexPath])
        }
        inFlight[url] = operation
        downloads.addOperation(operation)
        return cell
    }

    func makeOperation(_ url: URL) -> IconFetchOperation {
        IconFetchOperation(url: url, network: network)
    }

    override func didReceiveMemoryWarning() {
        downloads.cancelAllOperations()
        inFlight.removeAll()
        icons.removeAll()
    }

    override func scrollViewWillBeginDragging(_ tableView: TableView) {
        downloads.isSuspended = true
    }

    override func scrollViewDidEndDragging(_ tableView: TableView, willDecelerate decelerate: Bool) {
        if !decelerate { downloads.isSuspended = false }
    }

    override func scrollViewDidEndDecelerating(_ tableView: TableView) {
        downloads.isSuspended = false
    }
}
