/// `UIImageView`, reduced to what the lessons use: the image it shows.
/// Setting it off the main queue is recorded as a violation.
public final class ImageView {
    public var image: Image? {
        didSet {
            MainQueue.check("ImageView.image set off the main queue", in: instruments)
            didChange?(image)
        }
    }
    /// Tells the table that owns the cell (see `TableViewObserver`).
    var didChange: ((Image?) -> Void)?
    /// The scenario's, when it was made (see `MainQueue.check`).
    private let instruments = Instruments.current

    /// How much of the image being loaded has arrived, 0…1, while it loads;
    /// nil when nothing is loading. UIKit has no such property: an image
    /// library adds one (SDWebImage's `sd_imageProgress`) and draws a progress
    /// indicator over the view. The terminal screen draws it as a bar in the row.
    public var progress: Double? {
        didSet {
            MainQueue.check("ImageView.progress set off the main queue", in: instruments)
            didChangeProgress?(progress)
        }
    }
    /// Tells the table that owns the cell (see `TableViewObserver`).
    var didChangeProgress: ((Double?) -> Void)?

    /// What other code has attached to this view, by key: Objective-C's
    /// associated objects (`objc_setAssociatedObject`), which every UIKit
    /// object has and which category libraries use to remember things about a
    /// view (SDWebImage keeps a view's current load there).
    private var associated: [String: AnyObject] = [:]

    public init() {}

    public func associatedObject(forKey key: String) -> AnyObject? {
        MainQueue.check("ImageView associated object read off the main queue", in: instruments)
        return associated[key]
    }

    /// Attaches `object` under `key`, or removes what was there when it is nil.
    public func setAssociatedObject(_ object: AnyObject?, forKey key: String) {
        MainQueue.check("ImageView associated object set off the main queue", in: instruments)
        associated[key] = object
    }
}

/// `UILabel`, reduced to its text.
public final class Label {
    public var text: String? {
        didSet { MainQueue.check("Label.text set off the main queue", in: instruments) }
    }
    /// The scenario's, when it was made (see `MainQueue.check`).
    private let instruments = Instruments.current

    public init() {
        ViewsMade.note(self)
    }
}
