import Foundation
import LessonSupport
import SlowNetwork
import TableKit

// A controller ported from a published tutorial, not written for this suite:
// each row has a record whose `image` and `state` the download operation
// writes on its queue's thread, while `cellForRowAt` reads them on the main
// queue. One download at a time (a queue limited to 1), so the only race is
// the main queue against the download thread: what the race check must see.

struct AppInfo: Decodable {
    let name: String
    let icon: String
    let download: String
}

enum RecordState {
    case new, downloading, downloaded, failed
}

final class IconRecord {
    let name: String
    let url: URL?
    var state = RecordState.new
    var image = Image.placeholder

    init(name: String, url: URL?) {
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

class ImageDownloader: Operation, @unchecked Sendable {
    let record: IconRecord
    let network: SlowNetwork

    init(_ record: IconRecord, network: SlowNetwork) {
        self.record = record
        self.network = network
    }

    override func main() {
        if isCancelled { return }
        guard let url = record.url, let data = try? network.data(contentsOf: url) else {
            record.state = .failed
            return
        }
        if isCancelled { return }
        if let image = Image(data: data) {
            record.image = image
            record.state = .downloaded
        } else {
            record.state = .failed
        }
    }
}

class RecordViewController: TableViewController, LessonController {
    let network: SlowNetwork
    let catalogURL: URL
    let pendingOperations = PendingOperations()

    lazy var records: [IconRecord] = {
        guard let data = try? Data(contentsOf: catalogURL),
            let apps = try? PropertyListDecoder().decode([AppInfo].self, from: data)
        else { return [] }
        return apps.map { IconRecord(name: $0.name, url: URL(string: $0.icon)) }
    }()

    required init(environment: LessonEnvironment) {
        network = environment.network
        catalogURL = environment.catalogURL
        super.init()
    }

    static var variants: [LessonVariant] {
        [
            LessonVariant(
                flag: "cache-in-operation", help: "step 5 with the cache written in the operation",
                controller: CacheInOperationViewController.self),
            LessonVariant(
                flag: "marks-downloading", help: "the download marks its record as under way before it fetches",
                controller: MarkingRecordViewController.self),
        ]
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        records.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "app", for: indexPath)
        let record = records[indexPath.row]
        cell.textLabel.text = record.name
        cell.imageView.image = record.image
        switch record.state {
        case .new:
            startDownload(for: record, at: indexPath)
        case .downloading, .downloaded, .failed:
            break
        }
        return cell
    }

    func startDownload(for record: IconRecord, at indexPath: IndexPath) {
        guard pendingOperations.downloadsInProgress[indexPath] == nil else { return }
        let downloader = makeDownloader(for: record)
        downloader.completionBlock = { [weak self, unowned downloader] in
            if downloader.isCancelled { return }
            DispatchQueue.main.async {
                self?.pendingOperations.downloadsInProgress.removeValue(forKey: indexPath)
                self?.tableView.reloadRows(at: [indexPath])
            }
        }
        pendingOperations.downloadsInProgress[indexPath] = downloader
        pendingOperations.downloadQueue.addOperation(downloader)
    }

    func makeDownloader(for record: IconRecord) -> ImageDownloader {
        ImageDownloader(record, network: network)
    }
}

// The same controller whose download marks its record as under way before it
// fetches: that write, too, is made on the download thread while the main
// queue reads the record.

final class MarkingDownloader: ImageDownloader, @unchecked Sendable {
    override func main() {
        record.state = .downloading
        super.main()
    }
}

class MarkingRecordViewController: RecordViewController {
    override func makeDownloader(for record: IconRecord) -> ImageDownloader {
        MarkingDownloader(record, network: network)
    }
}
