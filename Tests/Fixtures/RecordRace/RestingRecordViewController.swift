import Foundation
import LessonSupport
import SlowNetwork
import TableKit

// The published tutorial's controller whole: the queue suspended while the
// user scrolls, downloads started only while the table rests, and at scroll
// end those of rows gone off screen cancelled and taken out of the pool. Its
// own calls to the queue order most downloads' writes before the main queue's
// reads; a row that leaves the screen and comes back within one gesture is
// read while its download runs, with nothing ordering the two.

class RestingRecordViewController: RecordViewController {
    static let variant = LessonVariant(
        flag: "loads-at-rest", help: "downloads start only while the table rests; the queue waits while it scrolls",
        controller: RestingRecordViewController.self)

    override func startDownload(for record: IconRecord, at indexPath: IndexPath) {
        guard !tableView.isDragging && !tableView.isDecelerating else { return }
        super.startDownload(for: record, at: indexPath)
    }

    override func scrollViewWillBeginDragging(_ tableView: TableView) {
        pendingOperations.downloadQueue.isSuspended = true
    }

    override func scrollViewDidEndDragging(_ tableView: TableView, willDecelerate decelerate: Bool) {
        if !decelerate { loadImagesForOnscreenCells() }
    }

    override func scrollViewDidEndDecelerating(_ tableView: TableView) {
        loadImagesForOnscreenCells()
    }

    func loadImagesForOnscreenCells() {
        let visible = Set(tableView.indexPathsForVisibleRows)
        for (indexPath, download) in pendingOperations.downloadsInProgress where !visible.contains(indexPath) {
            download.cancel()
            pendingOperations.downloadsInProgress.removeValue(forKey: indexPath)
        }
        for indexPath in visible where records[indexPath.row].state == .new {
            super.startDownload(for: records[indexPath.row], at: indexPath)
        }
        pendingOperations.downloadQueue.isSuspended = false
    }
}
