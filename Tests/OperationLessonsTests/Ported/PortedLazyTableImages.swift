import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit

// A controller ported from a published tutorial (see PortedTutorialTests):
// this file is, to the checks, the learner's only file.

/// Apple's LazyTableImages sample: an `IconDownloader` per row, by index
/// path in `imageDownloadsInProgress`, fetching with a task that holds no
/// thread (`URLSession`'s data task there, `SlowNetwork.fetch` here) and
/// handing the icon over on the main queue; icons load only when the table
/// is at rest (`loadImagesForOnscreenRows` at the end of a drag or a glide),
/// the icon kept on the model (`AppRecord.appIcon`), every download
/// cancelled at a memory warning.
final class LazyTableImagesController: TableViewController, LessonController, @unchecked Sendable {
    final class AppRecord: @unchecked Sendable {
        let appName: String
        let imageURLString: String
        var appIcon: Image?

        init(appName: String, imageURLString: String) {
            self.appName = appName
            self.imageURLString = imageURLString
        }
    }

    final class IconDownloader: @unchecked Sendable {
        var appRecord: AppRecord?
        var completionHandler: (() -> Void)?
        let network: SlowNetwork
        private var sessionTask: NetworkTask?

        init(network: SlowNetwork) {
            self.network = network
        }

        func startDownload() {
            guard let appRecord, let url = URL(string: appRecord.imageURLString) else { return }
            sessionTask = network.fetch(url, progress: { _, _ in }) { result in
                OperationQueue.main.addOperation {
                    if case .success(let data) = result, let image = Image(data: data) {
                        appRecord.appIcon = image
                    }
                    self.completionHandler?()
                }
            }
        }

        func cancelDownload() {
            sessionTask?.cancel()
            sessionTask = nil
        }
    }

    let network: SlowNetwork
    var entries: [AppRecord] = []
    var imageDownloadsInProgress: [IndexPath: IconDownloader] = [:]

    required init(environment: LessonEnvironment) {
        network = environment.network
        super.init()
        let catalog = (try? AppCatalog.load(from: environment.catalogURL).entries) ?? []
        entries = catalog.map { AppRecord(appName: $0.name, imageURLString: $0.icon) }
    }

    deinit {
        terminateAllDownloads()
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        entries.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "LazyTableCell", for: indexPath)
        let appRecord = entries[indexPath.row]
        cell.textLabel.text = appRecord.appName
        if let appIcon = appRecord.appIcon {
            cell.imageView.image = appIcon
        } else {
            if !tableView.isDragging && !tableView.isDecelerating {
                startIconDownload(appRecord, for: indexPath)
            }
            cell.imageView.image = Image.placeholder
        }
        return cell
    }

    func startIconDownload(_ appRecord: AppRecord, for indexPath: IndexPath) {
        guard imageDownloadsInProgress[indexPath] == nil else { return }
        let iconDownloader = IconDownloader(network: network)
        iconDownloader.appRecord = appRecord
        iconDownloader.completionHandler = {
            let cell = self.tableView.cellForRow(at: indexPath)
            cell?.imageView.image = appRecord.appIcon
            self.imageDownloadsInProgress.removeValue(forKey: indexPath)
        }
        imageDownloadsInProgress[indexPath] = iconDownloader
        iconDownloader.startDownload()
    }

    func loadImagesForOnscreenRows() {
        guard !entries.isEmpty else { return }
        for indexPath in tableView.indexPathsForVisibleRows {
            let appRecord = entries[indexPath.row]
            if appRecord.appIcon == nil { startIconDownload(appRecord, for: indexPath) }
        }
    }

    override func scrollViewDidEndDragging(_ tableView: TableView, willDecelerate decelerate: Bool) {
        if !decelerate { loadImagesForOnscreenRows() }
    }

    override func scrollViewDidEndDecelerating(_ tableView: TableView) {
        loadImagesForOnscreenRows()
    }

    override func didReceiveMemoryWarning() {
        terminateAllDownloads()
    }

    func terminateAllDownloads() {
        for download in imageDownloadsInProgress.values { download.cancelDownload() }
        imageDownloadsInProgress.removeAll()
    }
}
