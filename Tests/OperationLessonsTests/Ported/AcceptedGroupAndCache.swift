import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit

// A controller kept aside for acceptance (see AcceptanceTests), written from
// a description of a published sample, not copied: this file is, to the
// checks, the learner's only file.

/// Icons fetched on a global queue, each download entered in one
/// `DispatchGroup` (a "all icons loaded" log line when it empties), kept in
/// an `NSCache` by URL and handed to the row with `DispatchQueue.main.async`.
/// `cellForRowAt` shows a cached icon when it has one, but has no early
/// return: it asks for the icon again all the same.
final class GroupAndCacheController: TableViewController, LessonController, @unchecked Sendable {
    let network: SlowNetwork
    let rows: [AppEntry]
    let cache = NSCache<NSString, Image>()
    let group = DispatchGroup()
    var loaded = 0

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
        cell.imageView.image = cache.object(forKey: entry.icon as NSString) ?? Image.placeholder
        guard let url = URL(string: entry.icon) else { return cell }
        let network = self.network
        group.enter()
        DispatchQueue.global().async { [weak self] in
            let image = (try? network.data(contentsOf: url)).flatMap { Image(data: $0) }
            if let image { self?.cache.setObject(image, forKey: entry.icon as NSString) }
            DispatchQueue.main.async { [weak self] in
                defer { self?.group.leave() }
                guard let self, image != nil else { return }
                self.loaded += 1
                if self.tableView.indexPathsForVisibleRows.contains(indexPath) {
                    self.tableView.reloadRows(at: [indexPath])
                }
            }
        }
        return cell
    }

    override func didReceiveMemoryWarning() {
        cache.removeAllObjects()
    }
}
