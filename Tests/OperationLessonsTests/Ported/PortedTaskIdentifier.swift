import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit

// A controller in the shape of a published tutorial (see PortedTutorialTests):
// this file is, to the checks, the learner's only file.

/// Kingfisher's task identifier, by hand: an `IconService` object owns the
/// `OperationQueue` and the icons, and hands each image to a completion
/// handler; the cell's image view remembers (as an associated object, as
/// Kingfisher's `kf` extension does) the URL it waits for, and a late image
/// for another URL is ignored. The service keeps no list of downloads under
/// way, and the completion holds the controller.
final class IconService: @unchecked Sendable {
    private let network: SlowNetwork
    private let queue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        return queue
    }()
    /// Main queue only.
    private var memory: [URL: Image] = [:]

    init(network: SlowNetwork) {
        self.network = network
    }

    func cachedIcon(for url: URL) -> Image? {
        memory[url]
    }

    /// Fetches `url` on the service's queue; `completion` runs on the main queue.
    func loadIcon(from url: URL, completion: @escaping @Sendable (Image?) -> Void) {
        let network = self.network
        queue.addOperation {
            let image = (try? network.data(contentsOf: url)).flatMap { Image(data: $0) }
            OperationQueue.main.addOperation {
                if let image { self.memory[url] = image }
                completion(image)
            }
        }
    }

    func clearMemory() {
        memory.removeAll()
    }
}

extension ImageView {
    /// The URL this view waits for.
    var taskIdentifier: URL? {
        get { (associatedObject(forKey: "taskIdentifier") as? NSURL).map { $0 as URL } }
        set { setAssociatedObject(newValue.map { $0 as NSURL }, forKey: "taskIdentifier") }
    }
}

final class TaskIdentifierController: TableViewController, LessonController, @unchecked Sendable {
    let service: IconService
    let entries: [AppEntry]

    required init(environment: LessonEnvironment) {
        service = IconService(network: environment.network)
        entries = (try? AppCatalog.load(from: environment.catalogURL).entries) ?? []
        super.init()
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        entries.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        nonisolated(unsafe) let cell = tableView.dequeueReusableCell(withIdentifier: "app", for: indexPath)
        cell.textLabel.text = entries[indexPath.row].name
        guard let url = URL(string: entries[indexPath.row].icon) else { return cell }
        cell.imageView.taskIdentifier = url
        if let icon = service.cachedIcon(for: url) {
            cell.imageView.image = icon
            return cell
        }
        cell.imageView.image = Image.placeholder
        service.loadIcon(from: url) { image in
            guard cell.imageView.taskIdentifier == url, let image else { return }
            cell.imageView.image = image
        }
        return cell
    }

    override func didReceiveMemoryWarning() {
        service.clearMemory()
    }
}
