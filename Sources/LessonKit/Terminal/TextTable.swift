import TableKit
import TerminalKit

/// A table for a terminal: aligned columns, and on a terminal too narrow for
/// it, the same table cut into parts that fit, one under the other, each
/// starting with the row's key (its long form in the first part when it fits,
/// its short form after: "02 async with a placeholder", then "02").
///
/// Widths are display columns (`TerminalText.width`): "×" and "─" take one,
/// a CJK name two.
public struct TextTable: Sendable {
    public struct Column: Sendable {
        public let header: String
        public let alignedRight: Bool

        public init(_ header: String, alignedRight: Bool = true) {
            self.header = header
            self.alignedRight = alignedRight
        }
    }

    public struct Row: Sendable {
        public let key: String
        public let shortKey: String
        /// One per column; empty for a row told by `note` instead.
        public let cells: [String]
        /// A row with no cells (a run that crashed): said after its key, across the columns.
        public let note: String?

        public init(key: String, shortKey: String? = nil, cells: [String]) {
            self.key = key
            self.shortKey = shortKey ?? key
            self.cells = cells
            note = nil
        }

        public init(key: String, shortKey: String? = nil, note: String) {
            self.key = key
            self.shortKey = shortKey ?? key
            cells = []
            self.note = note
        }
    }

    public let keyHeader: String
    public let columns: [Column]
    public let rows: [Row]
    /// A line of "─" under the header.
    public let ruled: Bool

    public init(keyHeader: String, columns: [Column], rows: [Row], ruled: Bool = true) {
        self.keyHeader = keyHeader
        self.columns = columns
        self.rows = rows
        self.ruled = ruled
    }

    static let gap = 2

    /// The table in lines of at most `width` columns (nil: one part, however wide).
    public func rendered(width: Int?) -> String {
        let widths = columns.indices.map { index in
            ([columns[index].header] + rows.compactMap { $0.note == nil ? $0.cells[index] : nil })
                .map(TerminalText.width(of:)).max() ?? 0
        }
        let longKey = ([keyHeader] + rows.map(\.key)).map(TerminalText.width(of:)).max() ?? 0
        let shortKey = ([keyHeader] + rows.map(\.shortKey)).map(TerminalText.width(of:)).max() ?? 0
        func fits(_ key: Int, _ part: [Int]) -> Bool {
            width.map { key + part.map { widths[$0] + Self.gap }.reduce(0, +) <= $0 } ?? true
        }
        // Each part takes columns while they fit; the first keeps the long key if one column fits beside it.
        var parts: [(columns: [Int], long: Bool)] = []
        var remaining = Array(columns.indices)
        while !remaining.isEmpty {
            let long = parts.isEmpty && fits(longKey, [remaining[0]])
            var part = [remaining.removeFirst()]
            while let next = remaining.first, fits(long ? longKey : shortKey, part + [next]) {
                part.append(remaining.removeFirst())
            }
            parts.append((part, long))
        }
        var lines: [String] = []
        for (number, part) in parts.enumerated() {
            if number > 0 { lines.append("") }
            lines += render(
                part.columns, widths: widths, keyWidth: part.long ? longKey : shortKey, long: part.long, width: width)
        }
        return lines.joined(separator: "\n")
    }

    private func render(_ part: [Int], widths: [Int], keyWidth: Int, long: Bool, width: Int?) -> [String] {
        func pad(_ text: String, _ to: Int, right: Bool) -> String {
            let padding = String(repeating: " ", count: max(0, to - TerminalText.width(of: text)))
            return right ? padding + text : text + padding
        }
        let spacer = String(repeating: " ", count: Self.gap)
        let header =
            pad(keyHeader, keyWidth, right: false)
            + part.map { spacer + pad(columns[$0].header, widths[$0], right: columns[$0].alignedRight) }.joined()
        var lines = [header]
        if ruled { lines.append(String(repeating: "─", count: TerminalText.width(of: header))) }
        for row in rows {
            let key = pad(long ? row.key : row.shortKey, keyWidth, right: false)
            if let note = row.note {
                lines.append(TerminalText.wrapped(key + spacer + note, width: width))
                continue
            }
            lines.append(
                key + part.map { spacer + pad(row.cells[$0], widths[$0], right: columns[$0].alignedRight) }.joined())
        }
        return lines
    }
}
