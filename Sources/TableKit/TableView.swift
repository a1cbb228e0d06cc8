import Foundation

/// `UITableView` with the behaviour the tutorials' bugs depend on: a viewport
/// of `visibleRowCount` rows, cells asked for only when a row scrolls into view,
/// and real reuse: a cell that scrolls out goes to a pool and comes back for
/// another row.
///
/// Positions are in rows: `contentOffset` 12.5 means row 12 is half scrolled
/// out at the top. Every method must be called on the main queue; calls from
/// elsewhere are recorded as violations.
// More than 12 stored properties: UITableView's own state, kept in one object as UIKit keeps it.
public final class TableView {
    public weak var dataSource: (any TableViewDataSource)?
    public weak var delegate: (any ScrollViewDelegate)?

    /// How many rows fit on screen.
    public let visibleRowCount: Int
    public private(set) var numberOfRows = 0
    public private(set) var contentOffset: Double = 0
    public private(set) var isDragging = false
    public private(set) var isDecelerating = false

    /// Cells currently on screen, by row.
    public private(set) var visibleCells: [Int: TableViewCell] = [:]
    private var reusePool: [String: [TableViewCell]] = [:]
    /// How many cell objects were ever made: about one screenful, however long the list.
    public private(set) var cellsCreated = 0
    /// How many times the data source was asked for a cell.
    public private(set) var cellRequests = 0
    /// Who watches the table from outside the app (the harness).
    public weak var observer: (any TableViewObserver)?
    /// The row whose cell the data source is making now, if any.
    private var rowBeingProvided: Int?
    /// The scenario's, when it was made (see `MainQueue.check`).
    private let instruments = Instruments.current

    public init(visibleRowCount: Int) {
        precondition(visibleRowCount > 0, "a table shows at least one row")
        self.visibleRowCount = visibleRowCount
    }

    /// The rows any part of which is on screen.
    public var visibleRows: Range<Int> {
        guard numberOfRows > 0 else { return 0..<0 }
        let first = max(0, Int(contentOffset.rounded(.down)))
        let end = min(numberOfRows, Int((contentOffset + Double(visibleRowCount)).rounded(.up)))
        return first..<max(first, end)
    }

    public var indexPathsForVisibleRows: [IndexPath] { visibleRows.map { IndexPath(row: $0) } }

    /// The largest offset: the last row at the bottom of the screen.
    public var maximumOffset: Double { Double(max(0, numberOfRows - visibleRowCount)) }

    /// A pooled cell if there is one, otherwise a new one.
    public func dequeueReusableCell(withIdentifier identifier: String, for indexPath: IndexPath) -> TableViewCell {
        MainQueue.check("TableView.dequeueReusableCell called off the main queue", in: instruments)
        if let cell = reusePool[identifier]?.popLast() {
            cell.prepareForReuse()
            return cell
        }
        cellsCreated += 1
        let cell = TableViewCell(reuseIdentifier: identifier)
        cell.imageView.didChange = { [weak self, unowned cell] image in self?.cell(cell, wasGiven: image) }
        cell.imageView.didChangeProgress = { [weak self, unowned cell] progress in
            guard let self, MainQueue.isCurrent else { return }
            self.observer?.tableView(self, cell: cell, showsProgress: progress)
        }
        return cell
    }

    /// The cell showing `indexPath`, or nil if the row is off screen.
    public func cellForRow(at indexPath: IndexPath) -> TableViewCell? {
        MainQueue.check("TableView.cellForRow called off the main queue", in: instruments)
        return visibleCells[indexPath.row]
    }

    /// Forgets every visible cell and asks the data source again.
    public func reloadData() {
        MainQueue.check("TableView.reloadData called off the main queue", in: instruments)
        for row in visibleCells.keys.sorted() { recycleCell(at: row) }
        numberOfRows = callingTheApp { dataSource?.tableView(self, numberOfRowsInSection: 0) } ?? 0
        contentOffset = min(contentOffset, maximumOffset)
        layoutRows()
    }

    /// Asks the data source again for these rows, if they are on screen; rows
    /// off screen are ignored, as in UIKit.
    public func reloadRows(at indexPaths: [IndexPath]) {
        MainQueue.check("TableView.reloadRows called off the main queue", in: instruments)
        if MainQueue.isCurrent { observer?.tableView(self, willReloadRows: indexPaths.map(\.row)) }
        for indexPath in indexPaths where visibleCells[indexPath.row] != nil {
            recycleCell(at: indexPath.row)
            installCell(at: indexPath.row)
        }
    }

    /// Moves the content; rows that leave the screen give their cells back to
    /// the pool, rows that enter ask the data source for one.
    public func setContentOffset(_ offset: Double) {
        MainQueue.check("TableView.setContentOffset called off the main queue", in: instruments)
        contentOffset = min(max(0, offset), maximumOffset)
        layoutRows()
    }

    /// The finger touches down and starts to move.
    public func beginDragging() {
        let wasTracking = isTracking
        isDragging = true
        isDecelerating = false
        callingTheApp { delegate?.scrollViewWillBeginDragging(self) }
        if !wasTracking { post(Self.didBeginTrackingNotification) }
    }

    /// The finger lifts; with `willDecelerate` the content keeps gliding.
    public func endDragging(willDecelerate: Bool) {
        isDragging = false
        isDecelerating = willDecelerate
        callingTheApp { delegate?.scrollViewDidEndDragging(self, willDecelerate: willDecelerate) }
        if !isTracking { post(Self.didEndTrackingNotification) }
    }

    /// The glide after a flick comes to rest.
    public func endDecelerating() {
        guard isDecelerating else { return }
        isDecelerating = false
        callingTheApp { delegate?.scrollViewDidEndDecelerating(self) }
        if !isTracking { post(Self.didEndTrackingNotification) }
    }

    /// Whether the table is moving under the user's hand: dragged, or still
    /// gliding after a flick.
    public var isTracking: Bool { isDragging || isDecelerating }

    /// Posted on the main queue, object the table, when it starts to move
    /// under the user's hand and when it comes to rest. UIKit has no such
    /// notifications: it runs the main run loop in `UITrackingRunLoopMode`
    /// meanwhile, and work scheduled for the default mode waits (which is how
    /// SDWebImage's `LowPriority` first held its downloads back during a
    /// scroll). These tell the same to code that cannot see our run loop.
    public static let didBeginTrackingNotification = Notification.Name("TableKit.TableView.didBeginTracking")
    public static let didEndTrackingNotification = Notification.Name("TableKit.TableView.didEndTracking")

    private func post(_ name: Notification.Name) {
        callingTheApp { NotificationCenter.default.post(name: name, object: self) }
    }

    /// Every cell object the table holds, on screen or waiting in the pool.
    public var allCells: [TableViewCell] {
        Array(visibleCells.values) + reusePool.values.flatMap { $0 }
    }

    private func layoutRows() {
        let rows = visibleRows
        // Sorted so that the pool hands cells back in the same order every run; on most frames no row leaves.
        let leaving = visibleCells.keys.filter { !rows.contains($0) }
        if !leaving.isEmpty { for row in leaving.sorted() { recycleCell(at: row) } }
        for row in rows where visibleCells[row] == nil { installCell(at: row) }
    }

    private func installCell(at row: Int) {
        guard let dataSource else { return }
        cellRequests += 1
        observer?.tableView(self, willProvideCellAt: row)
        rowBeingProvided = row
        visibleCells[row] = callingTheApp { dataSource.tableView(self, cellForRowAt: IndexPath(row: row)) }
        rowBeingProvided = nil
        observer?.tableView(self, didProvideCellAt: row)
    }

    /// An image set outside `cellForRowAt` was delivered to the cell by the
    /// app's own code (a download's completion); one set inside it is the table
    /// asking. Off the main queue it is a violation already, and not looked at.
    private func cell(_ cell: TableViewCell, wasGiven image: Image?) {
        guard MainQueue.isCurrent, let observer else { return }
        observer.tableView(self, cell: cell, showsImage: image)
        guard rowBeingProvided == nil else { return }
        let row = visibleCells.first { $0.value === cell }?.key
        observer.tableView(self, cellAt: row, wasGiven: image)
    }

    private func recycleCell(at row: Int) {
        guard let cell = visibleCells.removeValue(forKey: row) else { return }
        reusePool[cell.reuseIdentifier, default: []].append(cell)
    }
}
