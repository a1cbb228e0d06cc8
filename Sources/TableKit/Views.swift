/// `UIImageView`, reduced to what the lessons use: the image it shows.
/// Setting it off the main queue is recorded as a violation.
public final class ImageView {
    public var image: Image? {
        didSet { MainQueue.check("ImageView.image set off the main queue") }
    }

    /// How much of the image being loaded has arrived, 0…1, while it loads;
    /// nil when nothing is loading. UIKit has no such property: an image
    /// library adds one (SDWebImage's `sd_imageProgress`) and draws a progress
    /// indicator over the view. The terminal screen draws it as a bar in the row.
    public var progress: Double? {
        didSet { MainQueue.check("ImageView.progress set off the main queue") }
    }

    /// What other code has attached to this view, by key: Objective-C's
    /// associated objects (`objc_setAssociatedObject`), which every UIKit
    /// object has and which category libraries use to remember things about a
    /// view (SDWebImage keeps a view's current load there).
    private var associated: [String: AnyObject] = [:]

    public init() {}

    public func associatedObject(forKey key: String) -> AnyObject? {
        MainQueue.check("ImageView associated object read off the main queue")
        return associated[key]
    }

    /// Attaches `object` under `key`, or removes what was there when it is nil.
    public func setAssociatedObject(_ object: AnyObject?, forKey key: String) {
        MainQueue.check("ImageView associated object set off the main queue")
        associated[key] = object
    }
}

/// `UILabel`, reduced to its text.
public final class Label {
    public var text: String? {
        didSet { MainQueue.check("Label.text set off the main queue") }
    }

    public init() {}
}
