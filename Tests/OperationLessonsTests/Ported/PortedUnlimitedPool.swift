import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit

// A controller in the shape of a learner's (see PortedTutorialTests): this
// file is, to the checks, the learner's only one.

/// Exercises 5–7 as a classroom handout writes them: one `OperationQueue`
/// with no `maxConcurrentOperationCount`, a pool of the block operations
/// under way keyed by icon, the queue suspended while the finger is down and
/// while the table glides, and a memory warning that cancels the queue and
/// empties the pool and the icons. Each operation looks at `isCancelled`
/// before and after its fetch; icons are kept on disk under a name made from
/// the whole URL.
final class UnlimitedPoolController: TableViewController, LessonController, @unchecked Sendable {
    let network: SlowNetwork
    let folder: URL
    let entries: [AppEntry]
    let queue = OperationQueue()
    /// Touched on the main queue only, like `images`.
    var operations: [String: BlockOperation] = [:]
    var images: [String: Image] = [:]

    required init(environment: LessonEnvironment) {
        network = environment.network
        folder = environment.cachesDirectory
        entries = (try? AppCatalog.load(from: environment.catalogURL).entries) ?? []
        super.init()
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func cachedFile(_ icon: String) -> URL {
        folder.appendingPathComponent(Data(icon.utf8).base64EncodedString().replacingOccurrences(of: "/", with: "_"))
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        entries.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "app", for: indexPath)
        let icon = entries[indexPath.row].icon
        cell.textLabel.text = entries[indexPath.row].name
        if let image = images[icon] ?? diskImage(icon) {
            cell.imageView.image = image
        } else {
            cell.imageView.image = Image.placeholder
            download(icon, for: indexPath)
        }
        return cell
    }

    private func diskImage(_ icon: String) -> Image? {
        guard let data = try? Data(contentsOf: cachedFile(icon)), let image = Image(data: data) else { return nil }
        images[icon] = image
        return image
    }

    private func download(_ icon: String, for indexPath: IndexPath) {
        guard operations[icon] == nil, let url = URL(string: icon) else { return }
        let (network, file) = (network, cachedFile(icon))
        let operation = BlockOperation()
        operation.addExecutionBlock { [weak operation] in
            guard operation?.isCancelled == false else { return }
            let data = try? network.data(contentsOf: url)
            guard operation?.isCancelled == false else { return }
            if let data { try? data.write(to: file, options: .atomic) }
            OperationQueue.main.addOperation { [weak self] in
                guard let self else { return }
                self.operations[icon] = nil
                guard let data, let image = Image(data: data) else { return }
                self.images[icon] = image
                self.tableView.reloadRows(at: [indexPath])
            }
        }
        operations[icon] = operation
        queue.addOperation(operation)
    }

    override func didReceiveMemoryWarning() {
        queue.cancelAllOperations()
        operations.removeAll()
        images.removeAll()
    }

    override func scrollViewWillBeginDragging(_ tableView: TableView) {
        queue.isSuspended = true
    }

    override func scrollViewDidEndDragging(_ tableView: TableView, willDecelerate decelerate: Bool) {
        if !decelerate { queue.isSuspended = false }
    }

    override func scrollViewDidEndDecelerating(_ tableView: TableView) {
        queue.isSuspended = false
    }
}
