import Foundation
import LessonSupport
import SlowNetwork
import TableKit
import WebImage

/// Exercise 11: step 11's app, compiled in the tutorials' Swift 5 language
/// mode, as the steps before it are. The loader is a class (`IconLoader`);
/// each cell's load is a `Task` on the main actor, cancelled when the cell is
/// reused. The disk cache is step 10's; a drag pauses the loader; a memory
/// warning cancels every load and empties the memory cache.
final class AppsViewController: TableViewController, LessonController {
    let catalogURL: URL
    let loader: IconLoader

    /// The model, loaded the first time the table asks for it.
    lazy var apps: [AppInfo] = {
        guard let data = try? Data(contentsOf: catalogURL),
            let apps = try? PropertyListDecoder().decode([AppInfo].self, from: data)
        else { return [] }
        return apps
    }()

    /// What each cell is loading, by cell. Main queue only.
    private var loads: [ObjectIdentifier: CellLoad] = [:]

    required init(environment: LessonEnvironment) {
        catalogURL = environment.catalogURL
        let clock = environment.network.clock
        loader = IconLoader(
            network: environment.network,
            disk: DiskCache(
                directory: environment.cachesDirectory, fileExtension: "ppm",
                now: { Date(timeIntervalSince1970: clock.now.seconds) }))
        super.init()
        // If the folder cannot be made or written (a read-only disk, a file
        // in its way), every write fails and icons are kept in memory only.
        // Say so once, here, rather than failing quietly on every icon.
        let cachesDirectory = environment.cachesDirectory
        let made =
            (try? FileManager.default.createDirectory(at: cachesDirectory, withIntermediateDirectories: true)) != nil
        if !made || !FileManager.default.isWritableFile(atPath: cachesDirectory.path) {
            let notice = "no disk cache: cannot write to \(cachesDirectory.path); icons are kept in memory only\n"
            FileHandle.standardError.write(Data(notice.utf8))
        }
    }

    /// Nothing of a freed controller's goes on loading.
    deinit {
        for load in loads.values { load.task?.cancel() }
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        apps.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "app", for: indexPath)
        let app = apps[indexPath.row]
        cell.textLabel.text = app.name
        cell.detailTextLabel.text = app.download
        let id = ObjectIdentifier(cell)
        // The row came back into its own cell while its icon is on its way: keep that load.
        if let load = loads[id], load.url == app.icon, !load.isDone { return cell }
        // A reused cell gives up the load of the row it showed before.
        loads[id]?.task?.cancel()
        cell.imageView.image = .placeholder
        let load = CellLoad(url: app.icon)
        loads[id] = load
        let shown = MainActorBound((view: cell.imageView, load: load))
        let loader = loader
        load.task = Task { @MainActor in
            let image = try? await loader.image(for: app.icon)
            // Cancelled (the cell was reused, or memory ran low): the icon is not this cell's any more.
            guard !Task.isCancelled else { return }
            let (view, load) = shown.value
            load.isDone = true
            if let image { view.image = image }
        }
        return cell
    }

    /// Cancel the loads, empty the memory cache. The disk cache stays.
    override func didReceiveMemoryWarning() {
        let loader = loader
        Task { loader.cancelAllAndClearMemory() }
        for load in loads.values { load.task?.cancel() }
        loads.removeAll()
    }

    /// No download starts while the user's finger is on the screen; the ones
    /// already running carry on to the end.
    override func scrollViewWillBeginDragging(_ tableView: TableView) {
        setPaused(true)
    }

    override func scrollViewDidEndDragging(_ tableView: TableView, willDecelerate decelerate: Bool) {
        if !decelerate { setPaused(false) }
    }

    override func scrollViewDidEndDecelerating(_ tableView: TableView) {
        setPaused(false)
    }

    private func setPaused(_ paused: Bool) {
        let loader = loader
        Task { loader.setPaused(paused) }
    }
}

/// What one cell is loading. Main queue only.
final class CellLoad {
    let url: String
    var task: Task<Void, Never>?
    /// The load has ended, with the icon or without it.
    var isDone = false

    init(url: String) {
        self.url = url
    }
}

/// A value sent to the main actor that is only ever opened there. TableKit's
/// views stand in for UIKit's, which are `@MainActor`; TableKit's are not
/// annotated (the steps before this one are Swift 5 code), so the compiler
/// cannot know that the harness calls the controller on the main queue only,
/// which is the main actor. This is the one place that says so, and it checks.
struct MainActorBound<Value>: @unchecked Sendable {
    private let stored: Value

    init(_ value: Value) {
        stored = value
    }

    @MainActor var value: Value { stored }
}
