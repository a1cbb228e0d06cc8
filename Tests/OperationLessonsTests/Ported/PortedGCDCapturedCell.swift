import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit

// A controller in the shape of a published tutorial (see PortedTutorialTests):
// this file is, to the checks, the learner's only file.

/// The "load images with GCD" blog post: no `Operation` at all. Each row's
/// icon is fetched in `DispatchQueue.global().async`, and the main queue sets
/// the image on the cell the closure captured, without asking which row that
/// cell shows by then; a dictionary on the main queue keeps the icons.
final class GCDCapturedCellController: TableViewController, LessonController, @unchecked Sendable {
    let network: SlowNetwork
    let apps: [AppEntry]
    var imageDict: [String: Image] = [:]

    required init(environment: LessonEnvironment) {
        network = environment.network
        apps = (try? AppCatalog.load(from: environment.catalogURL).entries) ?? []
        super.init()
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        apps.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        // Swift 6 will not send a cell to another queue; this learner told it not to mind.
        nonisolated(unsafe) let cell = tableView.dequeueReusableCell(withIdentifier: "AppCell", for: indexPath)
        let app = apps[indexPath.row]
        cell.textLabel.text = app.name
        if let image = imageDict[app.icon] {
            cell.imageView.image = image
            return cell
        }
        cell.imageView.image = Image.placeholder
        DispatchQueue.global().async {
            guard let url = URL(string: app.icon), let data = try? self.network.data(contentsOf: url),
                let image = Image(data: data)
            else { return }
            DispatchQueue.main.async {
                self.imageDict[app.icon] = image
                cell.imageView.image = image
            }
        }
        return cell
    }

    override func didReceiveMemoryWarning() {
        imageDict.removeAll()
    }
}
