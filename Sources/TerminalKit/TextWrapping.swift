/// Text laid out for a terminal of a given width: each line longer than the
/// width is broken between words, never inside one, and its continuation
/// lines are indented to where its text starts.
///
/// A terminal wraps a long line wherever the edge falls ("…rows show thei /
/// r own icon"); breaking it here first keeps words whole, and code in
/// backticks (`queue.addOperation { … }`) whole as one word while it fits.
/// A line whose words cannot fit (one word wider than the terminal) is left to
/// the terminal.
extension TerminalText {
    /// `text` with every line fitted to `width` columns; nil: as it is.
    public static func wrapped(_ text: some StringProtocol, width: Int?) -> String {
        guard let width else { return String(text) }
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .flatMap { wrappedLine($0, width: width) }.joined(separator: "\n")
    }

    /// One line in lines of at most `width` columns. Continuation lines start
    /// with `continuation`, or where the line's text starts (`hangingIndent`).
    public static func wrappedLine(_ line: some StringProtocol, width: Int, continuation: String? = nil) -> [String] {
        let line = String(line)
        guard self.width(of: line) > width else { return [line] }
        let indent = continuation ?? String(repeating: " ", count: hangingIndent(line, width: width))
        let indentWidth = self.width(of: indent)
        var lines: [String] = []
        var current = ""
        var currentWidth = 0
        for (gap, word) in words(of: line, keepingCodeWithin: width - indentWidth) {
            let wordWidth = self.width(of: word)
            if current.isEmpty {
                current = gap + word
                currentWidth = self.width(of: gap) + wordWidth
            } else if currentWidth + self.width(of: gap) + wordWidth <= width {
                current += gap + word
                currentWidth += self.width(of: gap) + wordWidth
            } else {
                lines.append(current)
                current = indent + word
                currentWidth = indentWidth + wordWidth
            }
        }
        lines.append(current)
        return lines
    }

    /// The columns `text` takes on a terminal: each character's width, an
    /// escape sequence (`ESC [ … m`, a colour) none.
    public static func width(of text: some StringProtocol) -> Int {
        var columns = 0
        var inEscape = false
        for character in text {
            if inEscape {
                // A control sequence ends with a letter (or @ [ \ ] ^ _ ` { | } ~) after its parameters.
                if let ascii = character.asciiValue, (0x40...0x7E).contains(ascii), character != "[" {
                    inEscape = false
                }
                continue
            }
            if character == "\u{1B}" {
                inEscape = true
                continue
            }
            columns += width(of: character)
        }
        return columns
    }

    /// Where a broken line's continuation starts: under the text of a
    /// "label   text" line (after its first run of two or more spaces), after a
    /// list marker ("- ", "1. ", "✗ ") or an indented line's label ("    measured: "),
    /// else at the line's own indentation; never past half the width.
    static func hangingIndent(_ line: String, width: Int) -> Int {
        let leading = line.prefix { $0 == " " }.count
        let body = line.dropFirst(leading)
        var candidates: [Int] = []
        if let gap = body.range(of: "  "), gap.lowerBound > body.startIndex {
            let textStart = body[gap.lowerBound...].firstIndex { $0 != " " } ?? body.endIndex
            candidates.append(leading + self.width(of: body[..<textStart]))
        }
        if let first = body.split(separator: " ", maxSplits: 1).first,
            ["-", "•", "*", "✓", "✗", "→"].contains(first)
                || (first.hasSuffix(".") && first.count > 1 && first.dropLast().allSatisfy(\.isNumber))
        {
            candidates.append(leading + self.width(of: first) + 1)
        }
        if leading > 0, let colon = body.range(of: ": "), body[..<colon.lowerBound].count < 14,
            body[..<colon.lowerBound].split(separator: " ").count <= 2
        {
            candidates.append(leading + self.width(of: body[..<colon.upperBound]))
        }
        return candidates.first { $0 <= width / 2 } ?? leading
    }

    /// Each word of `line` with the spaces before it (the first one's are the
    /// line's indentation); code between two backticks is one word when it
    /// takes at most `codeWidth` columns, else its own words.
    private static func words(of line: String, keepingCodeWithin codeWidth: Int) -> [(gap: String, word: String)] {
        words(of: line, codeSpans: true).flatMap { gap, word in
            guard word.contains(" "), width(of: word) > codeWidth else { return [(gap, word)] }
            var split = words(of: word, codeSpans: false)
            split[0].gap = gap
            return split
        }
    }

    /// Each word of `line` with the spaces before it; with `codeSpans`, a
    /// space between a backtick and the next one is part of a word (an
    /// unpaired last backtick opens no code).
    private static func words(of line: String, codeSpans: Bool) -> [(gap: String, word: String)] {
        var result: [(gap: String, word: String)] = []
        var gap = ""
        var word = ""
        var backticksLeft = codeSpans ? line.count(where: { $0 == "`" }) : 0
        var inCode = false
        for character in line {
            if character == "`", backticksLeft > 0 {
                backticksLeft -= 1
                // Code opens only where a backtick closes it.
                inCode = !inCode && backticksLeft > 0
            }
            if character == " " && !inCode {
                if !word.isEmpty {
                    result.append((gap, word))
                    (gap, word) = ("", "")
                }
                gap.append(character)
            } else {
                word.append(character)
            }
        }
        if !word.isEmpty || result.isEmpty { result.append((gap, word)) }
        return result
    }
}
