/// Text from data (a catalog's app names, whatever a learner's code puts in a
/// cell) made safe to put on a terminal, and measured in terminal columns.
///
/// A terminal obeys the bytes it is sent: an escape sequence in an app name
/// would retitle the window, switch to the alternate screen or clear it, and a
/// CR or LF would break the table. So only printable characters go out as
/// they are; everything else is shown escaped, visibly (`\u{1B}`, `\n`).
/// Widths are display columns, not code units: a CJK character takes two, a
/// combining mark none.
public enum TerminalText {
    /// The most code points one character may keep: enough for the longest
    /// emoji sequences (a kiss with two skin tones is 10), not for a "character"
    /// of 100,000 combining marks.
    public static let maxScalarsPerCharacter = 12

    /// `text` with every character that is not printable shown escaped.
    public static func printable(_ text: some StringProtocol) -> String {
        var result = ""
        for character in text { result += printable(character) }
        return result
    }

    /// The same, line by line: line breaks stay, for messages of several lines.
    public static func printableLines(_ text: some StringProtocol) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { printable($0) }.joined(separator: "\n")
    }

    /// `text` made printable and fitted to `columns` columns: cut with "…"
    /// when longer (a wide character that would cross the edge goes too), and
    /// padded with spaces when shorter, unless `padded` is false.
    ///
    /// Only the start of `text` is looked at (at most `4 × columns + 64`
    /// characters, zero-width ones included): a name is drawn 30 times a
    /// second, however long it is.
    public static func fitted(_ text: some StringProtocol, to columns: Int, padded: Bool = true) -> String {
        var pieces: [(text: String, width: Int)] = []
        var used = 0
        var examined = 0
        var rest = text.makeIterator()
        var cut = false
        while let character = rest.next() {
            examined += 1
            for piece in printable(character) {
                pieces.append((String(piece), width(of: piece)))
                used += pieces[pieces.count - 1].width
            }
            if used > columns || examined > 4 * columns + 64 {
                cut = rest.next() != nil || used > columns
                break
            }
        }
        var result = ""
        var kept = 0
        let room = cut ? columns - 1 : columns
        for piece in pieces {
            guard kept + piece.width <= room else { break }
            result += piece.text
            kept += piece.width
        }
        if cut {
            result += "…"
            kept += 1
        }
        return padded ? result + String(repeating: " ", count: max(0, columns - kept)) : result
    }

    // MARK: one character

    private static func printable(_ character: Character) -> String {
        let scalars = character.unicodeScalars
        if scalars.count == 1, let scalar = scalars.first, !isPrintable(scalar) { return escaped(scalar) }
        if scalars.allSatisfy(isPrintable) && scalars.count <= maxScalarsPerCharacter { return String(character) }
        // A printable base with something unprintable joined to it, or too many
        // marks: each unprintable code point escaped, the marks cut to the limit.
        var result = ""
        var kept = 0
        for scalar in scalars {
            if !isPrintable(scalar) {
                result += escaped(scalar)
            } else if kept < maxScalarsPerCharacter {
                result.unicodeScalars.append(scalar)
                kept += 1
            }
        }
        return result
    }

    /// Columns one printable character takes: 2 for East Asian wide and
    /// emoji, 0 for a lone mark or format character, 1 otherwise.
    public static func width(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        if scalars.contains(where: { $0.properties.isEmojiPresentation || isWide($0) }) { return 2 }
        return scalars.allSatisfy(isZeroWidth) ? 0 : 1
    }

    private static func isPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator, .surrogate, .unassigned, .privateUse: return false
        case .format: return !bidiControls.contains(scalar.value)
        default: return true
        }
    }

    /// Code points that reorder the text around them (a name that displays
    /// as something else than it is): shown escaped like controls.
    private static let bidiControls: Set<UInt32> = [
        0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069,
    ]

    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": "\\n"
        case "\r": "\\r"
        case "\t": "\\t"
        default: "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        }
    }

    private static func isZeroWidth(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: true
        default: scalar.value == 0x200B
        }
    }

    /// East Asian Wide and Fullwidth blocks (Unicode's EastAsianWidth.txt, the
    /// ranges terminals draw two columns wide).
    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            true
        default: false
        }
    }
}
