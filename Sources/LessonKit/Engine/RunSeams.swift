import DispatchSeam
import Foundation
import SlowNetwork
import TableKit

/// What the harness sets around the app for one run, and watches it through:
/// the story clock and its idle check, the network and the catalog the app is
/// given, the Dispatch seam's count of the run's work, and the watchers of
/// the table, the images and the caches folder.
final class RunSeams {
    let clock: StoryClock
    let activity: AppActivity
    let network: SlowNetwork
    let instruments = Instruments()
    /// The catalog the run plays on (`Scenario.playedCatalog`), and the file
    /// written for it, if one was, to remove at the end.
    let catalog: AppCatalog
    private let catalogFile: URL?
    let tableWatcher: TableWatcher
    let cachesFolder: CachesFolderWatch
    /// The Dispatch seam's number for this run (`seam_begin_run`).
    private var seamRun: UInt64 = 0

    init(_ setup: ScenarioSetup) {
        clock = StoryClock(startingAt: setup.carried?.storyTime ?? .zero)
        (catalog, catalogFile) = setup.scenario.playedCatalog(
            setup.catalog, folder: FileManager.default.temporaryDirectory)
        var conditions = NetworkConditions(setup.options)
        conditions.offline = setup.options.offline || setup.scenario.startsOffline
        conditions.jitter = setup.scenario.jitter
        conditions.rules = setup.scenario.rules(for: catalog)
        activity = AppActivity(clock: clock)
        network = SlowNetwork(conditions: conditions, clock: clock, isMainQueue: { [clock] in clock.isOnMainQueueThread })
        tableWatcher = TableWatcher(icons: catalog.entries.map(\.icon), now: { [clock] in clock.now.milliseconds })
        cachesFolder = CachesFolderWatch(setup.cachesDirectory, icons: catalog.entries.map(\.icon))
    }

    /// The icon URL of each row.
    var rowIcons: [String] { catalog.entries.map(\.icon) }

    /// Starts counting the run's Dispatch work and its writes into the caches
    /// folder (the app's own, not another test's). Returns why the run cannot
    /// play, if it cannot: a fact of the toolchain the seams rely on does not
    /// hold (`ToolchainContract`), and the clock would take the app's work for
    /// idle and move on without it.
    func begin() -> String? {
        let refusal = ToolchainContract.refusal
        seamRun = seam_begin_run()
        seam_watch_writes_in(cachesFolder.folder.path)
        return refusal
    }

    /// Stops counting the run's work and removes the catalog file written for it.
    func end() {
        seam_end_run(seamRun)
        if let catalogFile { try? FileManager.default.removeItem(at: catalogFile) }
    }
}
