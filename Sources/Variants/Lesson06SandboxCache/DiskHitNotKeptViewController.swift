import Foundation
import LessonSupport
import TableKit

/// Tutorial 003's look-up (`--disk-hit-not-kept`; 002's does the same): an icon
/// found on disk is shown but not kept in memory, so each time its row is shown
/// again the file is read and decoded again, on the main queue.
class DiskHitNotKeptViewController: AppsViewController {
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
            cell.imageView.image = image
        } else {
            cell.imageView.image = Image.placeholder
            download(app.icon, at: indexPath, to: file)
        }
        return cell
    }

    /// The tutorials' `download:…` method: the pool, then step 6's download.
    func download(_ icon: String, at indexPath: IndexPath, to file: URL) {
        if operations[icon] != nil { return }
        let network = self.network
        let operation = BlockOperation { [weak self] in
            let data = URL(string: icon).flatMap { try? network.data(contentsOf: $0) }
            let image = data.flatMap { Image(data: $0) }
            if let data, image != nil {
                try? FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try? data.write(to: file, options: .atomic)
            }
            OperationQueue.main.addOperation { [weak self] in
                self?.downloadFinished(icon: icon, image: image, at: indexPath)
            }
        }
        operations[icon] = operation
        queue.addOperation(operation)
    }
}
