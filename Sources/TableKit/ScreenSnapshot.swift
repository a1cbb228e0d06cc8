/// What one visible row shows at one moment.
public struct VisibleRow: Sendable {
    public let row: Int
    public let title: String?
    public let detail: String?
    public let image: Image?
    /// The image view's load progress (`ImageView.progress`), while an image loads.
    public let progress: Double?

    public init(row: Int, title: String?, detail: String?, image: Image?, progress: Double? = nil) {
        self.row = row
        self.title = title
        self.detail = detail
        self.image = image
        self.progress = progress
    }
}

/// What the screen shows at one moment: the frame clock takes one per frame.
public struct ScreenSnapshot: Sendable {
    public let contentOffset: Double
    public let rows: [VisibleRow]

    public init(contentOffset: Double, rows: [VisibleRow]) {
        self.contentOffset = contentOffset
        self.rows = rows
    }
}

extension TableView {
    /// The visible rows, top to bottom, as the user sees them now.
    public func snapshot() -> ScreenSnapshot {
        // A loop rather than a `map`: the frame clock takes one every frame, and a debug build does not specialise.
        let visible = visibleRows
        var rows: [VisibleRow] = []
        rows.reserveCapacity(visible.count)
        for row in visible {
            let cell = visibleCells[row]
            rows.append(
                VisibleRow(
                    row: row, title: cell?.textLabel.text, detail: cell?.detailTextLabel.text,
                    image: cell?.imageView.image, progress: cell?.imageView.progress))
        }
        return ScreenSnapshot(contentOffset: contentOffset, rows: rows)
    }
}
