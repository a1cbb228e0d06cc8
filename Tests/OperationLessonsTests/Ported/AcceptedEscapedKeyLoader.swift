import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit

// A controller kept aside for acceptance (see AcceptanceTests), written from
// a description of a published image library, not copied: this file is, to
// the checks, the learner's only file.

/// A library-style loader: a memory cache keyed by URL, then a file on disk
/// named by the whole URL, percent-escaped (so `…/qq/icon.png` and
/// `…/wechat/icon.png` get two files), then the network. Each cell remembers
/// its task: a cell handed out for another row cancels the task it had, and
/// a finished task sets its image only on a cell still waiting for that URL.
final class EscapedKeyLoaderController: TableViewController, LessonController, @unchecked Sendable {
    let network: SlowNetwork
    let rows: [AppEntry]
    let folder: URL
    let tasks: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        return queue
    }()
    /// Main queue only: the icons in memory by URL, and each cell's task and the URL it waits for.
    var memory: [String: Image] = [:]
    var cellTasks: [ObjectIdentifier: (url: String, task: Operation)] = [:]

    required init(environment: LessonEnvironment) {
        network = environment.network
        rows = (try? AppCatalog.load(from: environment.catalogURL).entries) ?? []
        folder = environment.cachesDirectory.appendingPathComponent("images")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        super.init()
    }

    static func key(_ url: String) -> String {
        url.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? url
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        rows.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
        let entry = rows[indexPath.row]
        cell.textLabel.text = entry.name
        setImage(on: cell, url: entry.icon)
        return cell
    }

    func setImage(on cell: TableViewCell, url: String) {
        let id = ObjectIdentifier(cell)
        if let previous = cellTasks[id] {
            if previous.url == url { return }
            previous.task.cancel()
            cellTasks[id] = nil
        }
        if let image = memory[url] {
            cell.imageView.image = image
            return
        }
        cell.imageView.image = Image.placeholder
        guard let remote = URL(string: url) else { return }
        let file = folder.appendingPathComponent(Self.key(url))
        let network = self.network
        let waiting = WaitingCell(cell: cell)
        let task = BlockOperation()
        task.addExecutionBlock { [weak self, weak task] in
            guard let task, !task.isCancelled else { return }
            var image = (try? Data(contentsOf: file)).flatMap { Image(data: $0) }
            if image == nil, let data = try? network.data(contentsOf: remote), let fetched = Image(data: data) {
                try? data.write(to: file, options: .atomic)
                image = fetched
            }
            DispatchQueue.main.async { [weak self] in
                guard let self else { return }
                let cell = waiting.cell
                if let image { self.memory[url] = image }
                guard let cell, let current = self.cellTasks[ObjectIdentifier(cell)], current.url == url else { return }
                self.cellTasks[ObjectIdentifier(cell)] = nil
                if let image { cell.imageView.image = image }
            }
        }
        cellTasks[id] = (url, task)
        tasks.addOperation(task)
    }

    override func didReceiveMemoryWarning() {
        memory.removeAll()
    }
}

/// The cell a task was started for, held weakly and touched on the main queue only.
struct WaitingCell: @unchecked Sendable {
    weak var cell: TableViewCell?
}
