import Foundation
import LessonSupport
import TableKit

/// The tutorials' delegate (`--assign-delegate`): `@property (assign)`, a
/// reference that neither keeps the controller nor is cleared when it goes.
/// Leave the screen while downloads run and the first one to finish calls a
/// controller that is no more. Objective-C's `assign` and Swift's
/// `unowned(unsafe)` then read freed memory (a crash some runs, garbage in
/// others); `unowned`, used here, is the same mistake with Swift's check: the
/// app stops at that call, every run.
final class AssignDelegateViewController: AppsViewController {
    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "app", for: indexPath)
        let app = apps[indexPath.row]
        cell.textLabel.text = app.name
        cell.detailTextLabel.text = app.download
        if let image = imageCache[app.icon] {
            cell.imageView.image = image
            return cell
        }
        let file = cacheFile(for: app.icon)
        if let data = try? Data(contentsOf: file), let image = Image(data: data) {
            imageCache[app.icon] = image
            cell.imageView.image = image
            return cell
        }
        cell.imageView.image = Image.placeholder
        if operations[app.icon] != nil {
            return cell
        }
        let operation = AssignDelegateOperation(icon: app.icon, indexPath: indexPath, file: file, network: network)
        operation.delegate = self
        operations[app.icon] = operation
        queue.addOperation(operation)
        return cell
    }
}

/// A download whose delegate is held as the tutorials' `assign` holds it.
final class AssignDelegateOperation: DownloadOperation, @unchecked Sendable {
    private unowned var assigned: (any DownloadOperationDelegate)?

    override var delegate: (any DownloadOperationDelegate)? {
        get { assigned }
        set { assigned = newValue }
    }
}
