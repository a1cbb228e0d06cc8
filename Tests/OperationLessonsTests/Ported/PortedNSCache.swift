import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit

// A controller ported from a published tutorial (see PortedTutorialTests):
// this file is, to the checks, the learner's only file.

/// The image-caching blog posts' `NSCache`: the icons in an
/// `NSCache<NSString, Image>`, which the download's own thread fills
/// (`NSCache` locks itself, in corelibs as on iOS: no data race), the
/// downloads in flight in a dictionary by URL on the main queue, and the
/// cache emptied with `removeAllObjects()` at a memory warning.
final class NSCacheImagesController: TableViewController, LessonController, @unchecked Sendable {
    let network: SlowNetwork
    let rows: [AppEntry]
    let downloadQueue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 3
        return queue
    }()
    let iconCache = NSCache<NSString, Image>()
    /// The URLs being downloaded; main queue only.
    var loading: Set<String> = []

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
        if let cached = iconCache.object(forKey: row.icon as NSString) {
            cell.imageView.image = cached
            return cell
        }
        cell.imageView.image = Image.placeholder
        guard !loading.contains(row.icon), let url = URL(string: row.icon) else { return cell }
        loading.insert(row.icon)
        let network = self.network
        downloadQueue.addOperation { [weak self] in
            let image = (try? network.data(contentsOf: url)).flatMap { Image(data: $0) }
            if let image { self?.iconCache.setObject(image, forKey: row.icon as NSString) }
            OperationQueue.main.addOperation { [weak self] in
                self?.loading.remove(row.icon)
                if image != nil { self?.tableView.reloadRows(at: [indexPath]) }
            }
        }
        return cell
    }

    override func didReceiveMemoryWarning() {
        iconCache.removeAllObjects()
    }
}
