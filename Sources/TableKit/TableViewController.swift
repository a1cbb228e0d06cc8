import Foundation

/// `UITableViewController`: owns a table view and is its data source and
/// scroll delegate. Lessons subclass it and override what the tutorial does.
///
/// Every method has a do-nothing body here so that a subclass's override is
/// what the table view calls (a protocol extension default would not be).
open class TableViewController: TableViewDataSource, ScrollViewDelegate {
    public let tableView: TableView

    public init(visibleRowCount: Int = 8) {
        tableView = TableView(visibleRowCount: visibleRowCount)
        tableView.dataSource = self
        tableView.delegate = self
    }

    /// Called once, on the main queue, before the first frame.
    open func viewDidLoad() {}

    /// Called on the main queue when the system runs low on memory.
    open func didReceiveMemoryWarning() {}

    open func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 0 }

    open func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        tableView.dequeueReusableCell(withIdentifier: "Cell", for: indexPath)
    }

    open func scrollViewWillBeginDragging(_ tableView: TableView) {}
    open func scrollViewDidEndDragging(_ tableView: TableView, willDecelerate decelerate: Bool) {}
    open func scrollViewDidEndDecelerating(_ tableView: TableView) {}
}
