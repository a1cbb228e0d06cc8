import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit

// A controller ported from a published tutorial (see PortedTutorialTests):
// this file is, to the checks, the learner's only file.

/// The "write your own image loader" articles' singleton: `ImageLoader.shared`
/// owns the queue, the downloads under way (callers waiting on one URL join
/// it) and the cache, all behind one lock; the controller only asks it for an
/// icon with a completion closure, called on the main queue. The closure
/// holds the controller, as those articles write it.
final class SharedLoaderController: TableViewController, LessonController, @unchecked Sendable {
    final class ImageLoader: @unchecked Sendable {
        nonisolated(unsafe) static var shared: ImageLoader!

        private let network: SlowNetwork
        private let workers = OperationQueue()
        private let lock = NSLock()
        private var cached: [URL: Image] = [:]
        private var waiting: [URL: [@Sendable (Image?) -> Void]] = [:]

        init(network: SlowNetwork) {
            self.network = network
            workers.maxConcurrentOperationCount = 3
        }

        func cachedImage(for url: URL) -> Image? {
            lock.withLock { cached[url] }
        }

        func loadImage(from url: URL, then completion: @escaping @Sendable (Image?) -> Void) {
            let first: Bool = lock.withLock {
                if let image = cached[url] {
                    OperationQueue.main.addOperation { completion(image) }
                    return false
                }
                let first = waiting[url] == nil
                waiting[url, default: []].append(completion)
                return first
            }
            guard first else { return }
            workers.addOperation {
                let image = (try? self.network.data(contentsOf: url)).flatMap { Image(data: $0) }
                let callers: [@Sendable (Image?) -> Void] = self.lock.withLock {
                    if let image { self.cached[url] = image }
                    return self.waiting.removeValue(forKey: url) ?? []
                }
                OperationQueue.main.addOperation { callers.forEach { $0(image) } }
            }
        }

        func purge() {
            lock.withLock { cached.removeAll() }
        }
    }

    let items: [AppEntry]

    required init(environment: LessonEnvironment) {
        items = (try? AppCatalog.load(from: environment.catalogURL).entries) ?? []
        ImageLoader.shared = ImageLoader(network: environment.network)
        super.init()
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        items.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "item", for: indexPath)
        let item = items[indexPath.row]
        cell.textLabel.text = item.name
        guard let url = URL(string: item.icon) else { return cell }
        if let image = ImageLoader.shared.cachedImage(for: url) {
            cell.imageView.image = image
            return cell
        }
        cell.imageView.image = Image.placeholder
        ImageLoader.shared.loadImage(from: url) { image in
            guard image != nil else { return }
            self.tableView.reloadRows(at: [indexPath])
        }
        return cell
    }

    override func didReceiveMemoryWarning() {
        ImageLoader.shared.purge()
    }
}
