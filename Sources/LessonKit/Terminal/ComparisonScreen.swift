import TableKit
import TerminalKit

/// Two runs of one scenario drawn in one terminal, each with its title and
/// status lines: side by side when the terminal is wide enough for two
/// tables, one above the other when not. Every line fits the terminal's
/// width, so none wraps; rows are as many lines high as the height allows.
public struct ComparisonScreen: Sendable {
    /// One run as the comparison shows it.
    public struct Side: Sendable {
        /// "step 6 · sandbox (disk) cache".
        public var title: String
        /// What it shows now; nil before its first frame.
        public var frame: ScreenFrame?
        /// How far it is: "playing", "finished at 11.2 s", "crashed (signal 11)".
        public var state: String

        public init(title: String, frame: ScreenFrame? = nil, state: String) {
            self.title = title
            self.frame = frame
            self.state = state
        }
    }

    public let style: TerminalScreen.Style
    public let lines: Int
    public let columns: Int

    /// Rows each side shows: the table's viewport (a ninth row half in view
    /// while scrolling is left out, so the layout never moves).
    static let rowsShown = 8
    /// Narrower than this, the two tables go one above the other.
    public static let sideBySideColumns = 100
    static let gutter = " │ "

    public init(style: TerminalScreen.Style, lines: Int, columns: Int) {
        self.style = style
        self.lines = lines
        self.columns = columns
    }

    public var sideBySide: Bool { columns >= Self.sideBySideColumns }

    /// The width of one side's column.
    var sideWidth: Int { sideBySide ? (columns - Self.gutter.count) / 2 : columns }

    /// Text lines per table row: three (icons 6 pixels high) when they fit,
    /// else two, else one; a side is a title, its rows and two status lines.
    var linesPerRow: Int {
        let sides = sideBySide ? 1 : 2
        return [3, 2, 1].first { 1 + sides * (3 + Self.rowsShown * $0) <= lines } ?? 1
    }

    /// The whole screen: the header, then both sides. In colour, drawn from
    /// the top left with each line cleared to its end.
    public func render(header: String, before: Side, after: Side) -> String {
        let top = TerminalText.fitted(header, to: columns, padded: false)
        let left = block(before)
        let right = block(after)
        let body =
            sideBySide
            ? zip(left, right).map { $0 + Self.gutter + $1 }
            : left + right
        let all = [top] + body
        switch style {
        case .plain:
            return all.map { $0.trimmingTrailingSpaces }.joined(separator: "\n") + "\n"
        case .colour:
            return "\u{1B}[H" + all.map { $0 + "\u{1B}[K" }.joined(separator: "\n") + "\u{1B}[J"
        }
    }

    /// One side alone, the whole width its own: how plain output shows a
    /// side's screen after each script step.
    public func renderSide(_ side: Side) -> String {
        block(side, width: columns).map { $0.trimmingTrailingSpaces }.joined(separator: "\n")
    }

    /// One side: its title and state, its rows, its status lines, each line
    /// exactly `width` columns.
    func block(_ side: Side, width: Int? = nil) -> [String] {
        let width = width ?? sideWidth
        let rowLines = style == .plain ? 1 : linesPerRow
        let screen = TerminalScreen(
            style: style, lines: rowLines, iconWidth: rowLines == 1 ? 4 : rowLines * 2, columns: width)
        let fittedTitle = TerminalText.fitted("\(side.title) — \(side.state)", to: width)
        // In colour the title stands out (bold): the escape is the renderer's own, around text made printable.
        let title = style == .colour ? "\u{1B}[1m" + fittedTitle + "\u{1B}[0m" : fittedTitle
        let blankRow = String(repeating: " ", count: width)
        var rows: [String] = []
        var status = ["", ""]
        if let frame = side.frame {
            let shown = ScreenSnapshot(
                contentOffset: frame.snapshot.contentOffset, rows: Array(frame.snapshot.rows.prefix(Self.rowsShown)))
            rows = screen.rows(shown, marks: frame.marks, width: width)
            status = frame.status.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        rows += Array(repeating: blankRow, count: max(0, Self.rowsShown * rowLines - rows.count))
        let statusLines = (status + ["", ""]).prefix(2).map { TerminalText.fitted($0, to: width) }
        return [title] + rows + statusLines
    }
}

extension String {
    /// Without the spaces at its end (a padded line printed as plain text).
    var trimmingTrailingSpaces: String {
        String(self[..<(lastIndex { $0 != " " }.map(index(after:)) ?? startIndex)])
    }
}
