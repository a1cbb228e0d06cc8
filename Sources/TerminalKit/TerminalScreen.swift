import Foundation
import HostOS
import TableKit

/// Draws the simulated table in a terminal: each visible row with its icon in
/// 24-bit colour (two pixels per character with "▀"), its title, and a mark the
/// harness chooses (own icon, placeholder, another row's icon…). Without a
/// terminal, or with `--plain`, the same rows are written as plain text.
///
/// Every text it is given goes through `TerminalText`: escape sequences and
/// line breaks in an app's name are shown, never obeyed, and columns are
/// counted as the terminal draws them.
public struct TerminalScreen: Sendable {
    public enum Style: Sendable { case colour, plain }

    public let style: Style
    /// Icon size in pixels on screen; each text line shows two pixel rows.
    public let iconPixels: Int
    /// The icon's width in columns (one pixel each): `iconPixels`, unless a
    /// layout short of lines draws it wider than tall.
    public let iconWidth: Int
    /// The terminal's width: every line is cut to it, so none wraps and pushes
    /// the table down (plain text is not cut).
    public let columns: Int
    /// Icons in colour; without (`NO_COLOR`), in shades of one colour.
    public let colours: Bool

    public init(
        style: Style, terminalLines: Int = TerminalScreen.terminalSize().lines,
        columns: Int = TerminalScreen.terminalSize().columns, visibleRows: Int = 8,
        colours: Bool = TerminalOutput.standardOutput.showsColour
    ) {
        self.style = style
        self.columns = columns
        self.colours = colours
        // Three lines a row when they fit, else two: the whole table stays on screen.
        self.iconPixels = terminalLines >= visibleRows * 3 + 6 ? 6 : 4
        self.iconWidth = iconPixels
    }

    /// A screen whose rows are `lines` text lines high (two pixel rows each),
    /// their icons `iconWidth` columns wide: for a layout that shares the
    /// terminal (`lessons compare` puts two screens in one).
    public init(
        style: Style, lines: Int, iconWidth: Int, columns: Int,
        colours: Bool = TerminalOutput.standardOutput.showsColour
    ) {
        self.style = style
        self.columns = columns
        self.colours = colours
        self.iconPixels = max(1, lines) * 2
        self.iconWidth = iconWidth
    }

    /// Standard output is a terminal a live screen can be drawn on: not one
    /// that takes no cursor moves (`TERM=dumb`), which gets the plain text.
    public static var standardOutputIsTerminal: Bool { TerminalOutput.standardOutput.drawsInPlace }

    public static func terminalSize() -> (lines: Int, columns: Int) {
        guard let size = HostTerminal.size(of: HostDescriptor.standardOutput), size.rows > 0 else { return (24, 80) }
        return (size.rows, size.columns)
    }

    /// The whole screen: a header, the rows, and the status lines (an entry
    /// of `status` may hold several lines).
    public func render(header: String, snapshot: ScreenSnapshot, marks: [Int: String], status: [String]) -> String {
        let status = status.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        switch style {
        case .plain:
            let rows = snapshot.rows.flatMap { rowLines($0, mark: marks[$0.row] ?? "") }
            return ([TerminalText.printable(header)] + rows + status.map { TerminalText.printable($0) })
                .joined(separator: "\n") + "\n"
        case .colour:
            func fit(_ line: String) -> String { TerminalText.fitted(line, to: columns, padded: false) }
            let rows = snapshot.rows.flatMap { rowLines($0, mark: marks[$0.row] ?? "") }
            let lines = [fit(header)] + rows + status.map(fit)
            // Home, then each line cleared to its end, then the rest cleared.
            return "\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\n") + "\u{1B}[J"
        }
    }

    /// The visible rows alone, every line exactly `width` columns (padded):
    /// one screen of a layout that puts two side by side. A narrow width
    /// leaves out the detail, then shortens the title.
    public func rows(_ snapshot: ScreenSnapshot, marks: [Int: String], width: Int) -> [String] {
        snapshot.rows.flatMap { rowLines($0, mark: marks[$0.row] ?? "", width: width) }
    }

    private func rowLines(_ visible: VisibleRow, mark: String, width: Int? = nil) -> [String] {
        let number = String(visible.row).leftPadded(to: 3)
        let bar = visible.progress.map { " " + progressBar($0) } ?? ""
        let iconColumns = style == .colour ? iconWidth : 8
        // The columns the text beside the icon has, and what the title and detail may take of them.
        let room = width.map { $0 - iconColumns - 1 }
        let fixed = 4 + min(TerminalText.width(of: TerminalText.printable(mark)), 16) + 1 + bar.count
        let full = room.map { $0 >= fixed + 26 } ?? true
        let title = TerminalText.fitted(visible.title ?? "", to: full ? 16 : max(4, min(16, (room ?? 0) - fixed)))
        let detail = full ? TerminalText.fitted(visible.detail ?? "", to: 8) + " " : ""
        var text = "\(number) \(title) \(detail)\(TerminalText.printable(mark))\(bar)"
        if let room { text = TerminalText.fitted(text, to: max(0, room)) }
        let pad = String(repeating: " ", count: max(0, (width ?? 0) - iconColumns))
        guard style == .colour else {
            let icon =
                switch visible.image {
                case nil: "[      ]"
                case let image? where image.isPlaceholder: "[ .... ]"
                default: "[ icon ]"
                }
            return ["\(icon) \(text)"]
        }
        if width == nil { text = TerminalText.fitted(text, to: max(0, columns - iconWidth - 1), padded: false) }
        let iconLines = drawIcon(visible.image)
        return iconLines.enumerated().map { index, icon in
            index == iconLines.count / 2 - (iconLines.count + 1) % 2 ? "\(icon) \(text)" : icon + (width == nil ? "" : pad)
        }
    }

    /// A row's download progress: eight cells filled in eighths, and the
    /// percentage (in plain text, eight `#` at most).
    func progressBar(_ fraction: Double) -> String {
        let clamped = min(1, max(0, fraction.isFinite ? fraction : 0))
        let percent = "\(Int((clamped * 100).rounded(.down)))%".leftPadded(to: 4)
        let width = 8
        guard style == .colour else {
            let filled = Int((clamped * Double(width)).rounded(.down))
            return "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] "
                + percent
        }
        let eighths = Int((clamped * Double(width * 8)).rounded(.down))
        let partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"][eighths % 8]
        let cells = String(repeating: "█", count: eighths / 8) + partial
        return "▕" + TerminalText.fitted(cells, to: width) + "▏" + percent
    }

    /// The icon scaled to `iconWidth` × `iconPixels`, two pixel rows per text line.
    private func drawIcon(_ image: Image?) -> [String] {
        let lineCount = iconPixels / 2
        guard let image else {
            return Array(repeating: String(repeating: " ", count: iconWidth), count: lineCount)
        }
        func pixel(_ x: Int, _ y: Int) -> (Int, Int, Int) {
            let sourceX = x * image.width / iconWidth
            let sourceY = y * image.height / iconPixels
            let offset = (sourceY * image.width + sourceX) * 3
            return (Int(image.pixels[offset]), Int(image.pixels[offset + 1]), Int(image.pixels[offset + 2]))
        }
        return (0..<lineCount).map { line in
            var text = ""
            for x in 0..<iconWidth {
                let top = pixel(x, line * 2)
                let bottom = pixel(x, line * 2 + 1)
                guard colours else {
                    text += Self.shade(top, bottom)
                    continue
                }
                text +=
                    "\u{1B}[38;2;\(top.0);\(top.1);\(top.2)m\u{1B}[48;2;\(bottom.0);\(bottom.1);\(bottom.2)m▀"
            }
            return colours ? text + "\u{1B}[0m" : text
        }
    }

    /// Two pixels without colour: a block as dark as they are bright on
    /// average (a light terminal text colour on a dark background).
    private static func shade(_ top: (Int, Int, Int), _ bottom: (Int, Int, Int)) -> String {
        func luma(_ pixel: (Int, Int, Int)) -> Int { (pixel.0 * 299 + pixel.1 * 587 + pixel.2 * 114) / 1000 }
        let level = (luma(top) + luma(bottom)) / 2
        return [" ", "░", "▒", "▓", "█"][min(4, level * 5 / 256)]
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
