import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit

// A controller ported from a published tutorial (see PortedTutorialTests):
// this file is, to the checks, the learner's only file.

/// The GCD tutorials' way, with no `Operation`: a `DispatchWorkItem` per
/// cell on `DispatchQueue.global()`, three at once by a semaphore, and the
/// item a cell waited for cancelled when the cell is given another row; an
/// item that finds itself cancelled after its fetch drops the icon. The
/// icons are kept in a dictionary on the main queue.
final class WorkItemsController: TableViewController, LessonController, @unchecked Sendable {
    let network: SlowNetwork
    let list: [AppEntry]
    let slots = DispatchSemaphore(value: 3)
    /// The work item each cell waits for, by cell; main queue only.
    var workItems: [ObjectIdentifier: DispatchWorkItem] = [:]
    var icons: [String: Image] = [:]

    required init(environment: LessonEnvironment) {
        network = environment.network
        list = (try? AppCatalog.load(from: environment.catalogURL).entries) ?? []
        super.init()
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        list.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "cell", for: indexPath)
        let entry = list[indexPath.row]
        cell.textLabel.text = entry.name
        workItems.removeValue(forKey: ObjectIdentifier(cell))?.cancel()
        if let icon = icons[entry.icon] {
            cell.imageView.image = icon
            return cell
        }
        cell.imageView.image = Image.placeholder
        guard let url = URL(string: entry.icon) else { return cell }
        let network = self.network
        let slots = self.slots
        var item: DispatchWorkItem!
        item = DispatchWorkItem { [weak self] in
            slots.wait()
            defer { slots.signal() }
            guard !item.isCancelled, let data = try? network.data(contentsOf: url), !item.isCancelled,
                let image = Image(data: data)
            else { return }
            DispatchQueue.main.async {
                self?.icons[entry.icon] = image
                self?.tableView.reloadRows(at: [indexPath])
            }
        }
        workItems[ObjectIdentifier(cell)] = item
        DispatchQueue.global().async(execute: item)
        return cell
    }

    override func didReceiveMemoryWarning() {
        icons.removeAll()
    }
}
