/// `UITableViewCell`: a title, a detail line and an image view. Cells are
/// reused: the same object shows row 2, scrolls away, and comes back showing
/// row 30, still holding whatever row 2 left in it unless someone resets it.
///
/// Unlike UIKit's `imageView`, ours has its size from the start; UIKit's
/// "zero-size image view until it had an image at layout time" quirk is not
/// modelled (it is why the tutorials set a placeholder before loading).
open class TableViewCell {
    public let reuseIdentifier: String
    public let textLabel = Label()
    public let detailTextLabel = Label()
    public let imageView = ImageView()

    public required init(reuseIdentifier: String) {
        self.reuseIdentifier = reuseIdentifier
    }

    /// Called when the table hands this cell out again. UIKit's default resets
    /// none of the content the app set (only state such as selection, which
    /// these cells do not have), and neither does ours.
    open func prepareForReuse() {}
}
