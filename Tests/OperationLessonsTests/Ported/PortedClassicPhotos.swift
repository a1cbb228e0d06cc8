import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit

// A controller ported from a published tutorial (see PortedTutorialTests):
// this file is, to the checks, the learner's only file.

/// Kodeco's (raywenderlich.com) "Operation and OperationQueue Tutorial in
/// Swift", ClassicPhotos: a `PhotoRecord` per row with a state and an image,
/// written by an `ImageDownloader` operation on its thread; the operations in
/// progress in `PendingOperations`, by index path, one download at a time; the
/// queue suspended while the user drags, and at scroll end the downloads of
/// rows gone off screen cancelled and taken out of the pool. (The tutorial's
/// sepia filter, a second operation, is left out: TableKit's images have no
/// pixels to filter.)
final class ClassicPhotosController: TableViewController, LessonController, @unchecked Sendable {
    enum PhotoRecordState {
        case new, downloaded, failed
    }

    final class PhotoRecord: @unchecked Sendable {
        let name: String
        let url: URL
        var state = PhotoRecordState.new
        var image: Image? = Image.placeholder

        init(name: String, url: URL) {
            self.name = name
            self.url = url
        }
    }

    final class PendingOperations {
        lazy var downloadsInProgress: [IndexPath: Operation] = [:]
        lazy var downloadQueue: OperationQueue = {
            let queue = OperationQueue()
            queue.name = "Download queue"
            queue.maxConcurrentOperationCount = 1
            return queue
        }()
    }

    final class ImageDownloader: Operation, @unchecked Sendable {
        let photoRecord: PhotoRecord
        let network: SlowNetwork

        init(_ photoRecord: PhotoRecord, network: SlowNetwork) {
            self.photoRecord = photoRecord
            self.network = network
        }

        override func main() {
            if isCancelled { return }
            guard let imageData = try? network.data(contentsOf: photoRecord.url) else { return }
            if isCancelled { return }
            if let image = Image(data: imageData) {
                photoRecord.image = image
                photoRecord.state = .downloaded
            } else {
                photoRecord.state = .failed
                photoRecord.image = Image.placeholder
            }
        }
    }

    let network: SlowNetwork
    var photos: [PhotoRecord] = []
    let pendingOperations = PendingOperations()

    required init(environment: LessonEnvironment) {
        network = environment.network
        super.init()
        let entries = (try? AppCatalog.load(from: environment.catalogURL).entries) ?? []
        photos = entries.compactMap { entry in URL(string: entry.icon).map { PhotoRecord(name: entry.name, url: $0) } }
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        photos.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "CellIdentifier", for: indexPath)
        let photoDetails = photos[indexPath.row]
        cell.textLabel.text = photoDetails.name
        cell.imageView.image = photoDetails.image
        switch photoDetails.state {
        case .failed:
            cell.textLabel.text = "Failed to load"
        case .new:
            if !tableView.isDragging && !tableView.isDecelerating {
                startOperations(for: photoDetails, at: indexPath)
            }
        case .downloaded:
            break
        }
        return cell
    }

    func startOperations(for photoRecord: PhotoRecord, at indexPath: IndexPath) {
        if photoRecord.state == .new { startDownload(for: photoRecord, at: indexPath) }
    }

    func startDownload(for photoRecord: PhotoRecord, at indexPath: IndexPath) {
        guard pendingOperations.downloadsInProgress[indexPath] == nil else { return }
        let downloader = ImageDownloader(photoRecord, network: network)
        downloader.completionBlock = {
            if downloader.isCancelled { return }
            DispatchQueue.main.async {
                self.pendingOperations.downloadsInProgress.removeValue(forKey: indexPath)
                self.tableView.reloadRows(at: [indexPath])
            }
        }
        pendingOperations.downloadsInProgress[indexPath] = downloader
        pendingOperations.downloadQueue.addOperation(downloader)
    }

    override func scrollViewWillBeginDragging(_ tableView: TableView) {
        suspendAllOperations()
    }

    override func scrollViewDidEndDragging(_ tableView: TableView, willDecelerate decelerate: Bool) {
        if !decelerate {
            loadImagesForOnscreenCells()
            resumeAllOperations()
        }
    }

    override func scrollViewDidEndDecelerating(_ tableView: TableView) {
        loadImagesForOnscreenCells()
        resumeAllOperations()
    }

    func suspendAllOperations() {
        pendingOperations.downloadQueue.isSuspended = true
    }

    func resumeAllOperations() {
        pendingOperations.downloadQueue.isSuspended = false
    }

    func loadImagesForOnscreenCells() {
        let pathsArray = tableView.indexPathsForVisibleRows
        let allPendingOperations = Set(pendingOperations.downloadsInProgress.keys)
        var toBeCancelled = allPendingOperations
        let visiblePaths = Set(pathsArray)
        toBeCancelled.subtract(visiblePaths)
        var toBeStarted = visiblePaths
        toBeStarted.subtract(allPendingOperations)
        for indexPath in toBeCancelled {
            if let pendingDownload = pendingOperations.downloadsInProgress[indexPath] {
                pendingDownload.cancel()
            }
            pendingOperations.downloadsInProgress.removeValue(forKey: indexPath)
        }
        for indexPath in toBeStarted {
            let recordToProcess = photos[indexPath.row]
            startOperations(for: recordToProcess, at: indexPath)
        }
    }
}
