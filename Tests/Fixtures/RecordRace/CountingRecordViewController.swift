import Foundation
import LessonSupport
import SlowNetwork
import TableKit

// The tutorial's controller with a count of downloads under way, for a
// "loading…" label: the download thread counts while `cellForRowAt` reads the
// count on the main queue. What races is a plain `Int` of the controller, not
// a dictionary.

final class CountingDownloader: ImageDownloader, @unchecked Sendable {
    weak var controller: CountingRecordViewController?

    override func main() {
        controller?.downloadsUnderWay += 1
        super.main()
    }
}

class CountingRecordViewController: RecordViewController {
    var downloadsUnderWay = 0

    static let variant = LessonVariant(
        flag: "counts-downloads", help: "the download counts the downloads under way, on its thread",
        controller: CountingRecordViewController.self)

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = super.tableView(tableView, cellForRowAt: indexPath)
        cell.detailTextLabel.text = downloadsUnderWay > 0 ? "loading…" : nil
        return cell
    }

    override func makeDownloader(for record: IconRecord) -> ImageDownloader {
        let downloader = CountingDownloader(record, network: network)
        downloader.controller = self
        return downloader
    }
}
