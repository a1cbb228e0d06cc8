import TableKit

/// What a controller shows and can be tapped: the labels and buttons it made
/// while it was made (TableKit notes each as it is made, `ViewsMade`), so the
/// harness reads a screen without looking inside it, wherever the screen
/// keeps its views.
public struct Outlets: @unchecked Sendable {
    /// In the order they were made: a subclass's before its superclass's, each
    /// class's in the order its properties are declared.
    public let labels: [Label]
    public let buttons: [Button]

    init(_ views: ViewsMade) {
        labels = views.labels
        buttons = views.buttons
    }
}
