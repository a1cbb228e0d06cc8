import Foundation

/// `UITableViewDataSource`, one section.
public protocol TableViewDataSource: AnyObject {
    func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int
    func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell
}

/// `UIScrollViewDelegate`, the three moments the tutorials use to suspend and
/// resume their download queue.
public protocol ScrollViewDelegate: AnyObject {
    func scrollViewWillBeginDragging(_ tableView: TableView)
    func scrollViewDidEndDragging(_ tableView: TableView, willDecelerate decelerate: Bool)
    func scrollViewDidEndDecelerating(_ tableView: TableView)
}
