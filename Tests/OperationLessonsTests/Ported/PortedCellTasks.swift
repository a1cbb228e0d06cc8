import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit

// A controller ported from a published tutorial (see PortedTutorialTests):
// this file is, to the checks, the learner's only file.

/// The cell-reuse pattern of the image libraries' tutorials (SDWebImage's
/// `sd_setImage`, Kingfisher's `kf.setImage` and `prepareForReuse`'s
/// `cancelDownloadTask()`), written by hand: each cell owns the task of the
/// icon it waits for, and a cell given another row cancels it first. The
/// icons are kept in a dictionary on the main queue; a finished download
/// reloads its row.
final class CellOwnsItsTaskController: TableViewController, LessonController, @unchecked Sendable {
    let network: SlowNetwork
    let icons: [String]
    /// The download each cell waits for, by cell.
    var tasks: [ObjectIdentifier: NetworkTask] = [:]
    var images: [String: Image] = [:]

    required init(environment: LessonEnvironment) {
        network = environment.network
        icons = (try? AppCatalog.load(from: environment.catalogURL).entries.map(\.icon)) ?? []
        super.init()
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        icons.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "icon", for: indexPath)
        let icon = icons[indexPath.row]
        cell.textLabel.text = "row \(indexPath.row)"
        // prepareForReuse: the icon this cell waited for is not wanted any more.
        tasks.removeValue(forKey: ObjectIdentifier(cell))?.cancel()
        if let image = images[icon] {
            cell.imageView.image = image
            return cell
        }
        cell.imageView.image = Image.placeholder
        guard let url = URL(string: icon) else { return cell }
        tasks[ObjectIdentifier(cell)] = network.fetch(url, progress: { _, _ in }) { result in
            OperationQueue.main.addOperation { [weak self] in
                guard let self, case .success(let data) = result, let image = Image(data: data) else { return }
                self.images[icon] = image
                self.tableView.reloadRows(at: [indexPath])
            }
        }
        return cell
    }

    override func didReceiveMemoryWarning() {
        images.removeAll()
    }
}
