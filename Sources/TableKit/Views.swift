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

    public init() {}
}

/// `UILabel`, reduced to its text.
public final class Label {
    public var text: String? {
        didSet { MainQueue.check("Label.text set off the main queue", in: instruments) }
    }
    /// The scenario's, when it was made (see `MainQueue.check`).
    private let instruments = Instruments.current

    public init() {}
}
