import LessonSupport
import TableKit

/// The step's controller as a run holds it, on the main queue: made from its
/// type and launched, retired when its screen goes away at the end of the run
/// (a relaunch ends the whole process instead, `CarriedLaunch`), and
/// afterwards, whether anything else still held it.
final class LaunchedApp {
    private let type: any LessonController.Type
    private let environment: LessonEnvironment
    private let watcher: TableWatcher
    /// The controller on screen; nil once it is retired.
    private(set) var controller: (any LessonController)?
    /// Whether the retired controller is gone; nil until one is retired.
    private var retiredIsFreed: (() -> Bool)?
    private var cellRequestsOfRetired = 0

    /// `cellRequestsBefore`: the cells the app's earlier processes were asked for.
    init(
        _ type: any LessonController.Type, environment: LessonEnvironment, watcher: TableWatcher,
        cellRequestsBefore: Int = 0
    ) {
        self.type = type
        cellRequestsOfRetired = cellRequestsBefore
        self.environment = environment
        self.watcher = watcher
    }

    var table: TableView? { controller?.tableView }

    /// Cells the app has been asked for, by its controller and those of the app's earlier processes.
    var cellsProvided: Int { cellRequestsOfRetired + (controller?.tableView.cellRequests ?? 0) }

    /// Whether the retired controller was freed: nothing held it.
    var retiredControllerIsFreed: Bool { retiredIsFreed?() ?? false }

    func snapshot() -> ScreenSnapshot {
        controller?.tableView.snapshot() ?? ScreenSnapshot(contentOffset: 0, rows: [])
    }

    func launch() {
        let controller = callingTheApp { type.init(environment: environment) }
        self.controller = controller
        controller.tableView.observer = watcher
        callingTheApp { controller.viewDidLoad() }
        controller.tableView.reloadData()
    }

    /// The screen goes away: the table stops asking its data source (as a
    /// view off-window does), and the harness lets go of the controller.
    /// Whether it is then freed says if anything else still holds it.
    func retire() {
        guard let table else { return }
        table.dataSource = nil
        table.delegate = nil
        table.observer = nil
        cellRequestsOfRetired += table.cellRequests
        weak let retiredController = controller
        retiredIsFreed = { retiredController == nil }
        // Most often the last reference: the controller's `deinit` is the app's code, and what it synchronises on
        // (a `cancelAllOperations()`) is the app's order. Its reads and writes TSan never checks: Swift's TSan
        // build ignores them in every `deinit` (`__tsan_ignore_thread_begin`).
        callingTheApp { controller = nil }
    }
}
