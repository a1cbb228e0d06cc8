/// What a table shows its observer (the harness) of how the app uses it: when
/// the data source is asked for a cell, and when the app delivers an image
/// later, by reloading a row or by setting it on a cell it kept.
public protocol TableViewObserver: AnyObject {
    /// The data source is about to be asked for the cell of `row`.
    func tableView(_ tableView: TableView, willProvideCellAt row: Int)
    /// It has returned one.
    func tableView(_ tableView: TableView, didProvideCellAt row: Int)
    /// The app asked for these rows to be shown again, on screen or not.
    func tableView(_ tableView: TableView, willReloadRows rows: [Int])
    /// The app set a cell's image outside `cellForRowAt`; `row` is the row the
    /// cell shows now, nil when it is off screen.
    func tableView(_ tableView: TableView, cellAt row: Int?, wasGiven image: Image?)
    /// A cell's image view shows `image` now, whoever set it and wherever.
    func tableView(_ tableView: TableView, cell: TableViewCell, showsImage image: Image?)
    /// A cell's image view shows a load's progress (nil: none), as an image
    /// library sets it (`ImageView.progress`).
    func tableView(_ tableView: TableView, cell: TableViewCell, showsProgress progress: Double?)
}
