import Foundation
import LessonSupport
import TableKit

/// Tutorial 002's write (`--write-on-main-queue`): the download hands its image
/// to the main queue, which encodes it again (the tutorial's
/// `UIImagePNGRepresentation(image)`) and writes the file there, beside the
/// reload. Every download makes the main queue wait for the disk.
final class WriteOnMainQueueViewController: AppsViewController {
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
        if operations[app.icon] != nil { return cell }
        let network = self.network
        let operation = BlockOperation { [weak self] in
            let data = URL(string: app.icon).flatMap { try? network.data(contentsOf: $0) }
            let image = data.flatMap { Image(data: $0) }
            OperationQueue.main.addOperation { [weak self] in
                // UIImage → NSData → file, on the main queue.
                if let image {
                    try? FileManager.default.createDirectory(
                        at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try? Self.encoded(image).write(to: file, options: .atomic)
                }
                self?.downloadFinished(icon: app.icon, image: image, at: indexPath)
            }
        }
        operations[app.icon] = operation
        queue.addOperation(operation)
        return cell
    }

    /// The image as file bytes again: what `UIImagePNGRepresentation` does, in
    /// the format the icons come in (binary PPM).
    static func encoded(_ image: Image) -> Data {
        var data = Data("P6\n\(image.width) \(image.height)\n255\n".utf8)
        data.append(contentsOf: image.pixels)
        return data
    }
}
