import Foundation

/// A lesson text (`Lessons/NN-*.md`) read by its headings, never by its line numbers: the texts are rewritten
/// often, and a section is found by its `## ` title wherever it has moved.
public struct LessonDocument: Sendable {
    /// The `# ` title, as written.
    public let title: String
    /// Everything between the title and the first `## ` heading: the opening paragraphs.
    public let opening: [MarkdownBlock]
    /// Each `## ` section, in order.
    public let sections: [(title: String, blocks: [MarkdownBlock])]
    /// The text's HTML comments, each without its `<!--` and `-->` (the figures, the code steps' anchors).
    public let comments: [String]

    public init(text: String) {
        var title = ""
        var opening: [String] = []
        var sections: [(String, [String])] = []
        var comments: [String] = []
        var comment: [String]? = nil
        var inFence = false
        for line in text.components(separatedBy: "\n") {
            if var open = comment {
                if line.contains("-->") {
                    open.append(String(line[..<line.range(of: "-->")!.lowerBound]))
                    comments.append(open.joined(separator: "\n"))
                    comment = nil
                } else {
                    open.append(line)
                    comment = open
                }
                continue
            }
            if !inFence, line.hasPrefix("<!--") {
                let rest = String(line.dropFirst(4))
                if let end = rest.range(of: "-->") {
                    comments.append(String(rest[..<end.lowerBound]))
                } else {
                    comment = [rest]
                }
                continue
            }
            if line.hasPrefix("```") { inFence.toggle() }
            if !inFence, line.hasPrefix("# "), title.isEmpty {
                title = String(line.dropFirst(2)).trimmingCharacters(in: .whitespaces)
            } else if !inFence, line.hasPrefix("## ") {
                sections.append((String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces), []))
            } else if sections.isEmpty {
                opening.append(line)
            } else {
                sections[sections.count - 1].1.append(line)
            }
        }
        self.title = title
        self.opening = MarkdownBlock.parse(opening)
        self.sections = sections.map { ($0.0, MarkdownBlock.parse($0.1)) }
        self.comments = comments
    }

    /// The blocks of the first section whose title starts with `title` (case aside), or nil.
    public func section(_ title: String) -> [MarkdownBlock]? {
        sections.first { $0.title.lowercased().hasPrefix(title.lowercased()) }?.blocks
    }

    /// The lines of the comment that starts with `name` (`<!-- code steps`), without that first line.
    public func comment(named name: String) -> [String] {
        guard let body = comments.first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(name) }) else {
            return []
        }
        return Array(body.components(separatedBy: "\n").dropFirst()).filter {
            !$0.trimmingCharacters(in: .whitespaces).isEmpty
        }
    }
}

/// A block of a lesson's Markdown: enough of CommonMark for what the texts use.
public enum MarkdownBlock: Sendable, Equatable {
    case paragraph(String)
    /// A fenced block: its language (`sh`, `swift`, `diff`) and its lines.
    case code(language: String, text: String)
    /// A list: whether numbered, and each item's text (continuation lines joined).
    case list(numbered: Bool, items: [String])
    /// A `### ` heading.
    case heading(String)
    /// An image line, `![alt](path)`.
    case image(alt: String, path: String)

    static func parse(_ lines: [String]) -> [MarkdownBlock] {
        var blocks: [MarkdownBlock] = []
        var paragraph: [String] = []
        var items: [String] = []
        var numbered = false
        var fence: (language: String, lines: [String])? = nil

        func flush() {
            if !paragraph.isEmpty { blocks.append(.paragraph(paragraph.joined(separator: " "))) }
            if !items.isEmpty { blocks.append(.list(numbered: numbered, items: items)) }
            paragraph = []
            items = []
        }
        for line in lines {
            if var open = fence {
                if line.hasPrefix("```") {
                    blocks.append(.code(language: open.language, text: open.lines.joined(separator: "\n")))
                    fence = nil
                } else {
                    open.lines.append(line)
                    fence = open
                }
                continue
            }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("```") {
                flush()
                fence = (String(line.dropFirst(3)).trimmingCharacters(in: .whitespaces), [])
            } else if trimmed.isEmpty {
                flush()
            } else if line.hasPrefix("### ") {
                flush()
                blocks.append(.heading(String(line.dropFirst(4))))
            } else if let image = imageLine(trimmed) {
                flush()
                blocks.append(image)
            } else if let item = listItem(line) {
                if !paragraph.isEmpty || (!items.isEmpty && numbered != item.numbered) { flush() }
                numbered = item.numbered
                items.append(item.text)
            } else if !items.isEmpty, line.hasPrefix(" ") {
                items[items.count - 1] += "\n" + trimmed
            } else {
                if !items.isEmpty { flush() }
                paragraph.append(trimmed)
            }
        }
        flush()
        return blocks
    }

    /// `- text` or `12. text` at the start of a line, not indented.
    private static func listItem(_ line: String) -> (numbered: Bool, text: String)? {
        if line.hasPrefix("- ") { return (false, String(line.dropFirst(2))) }
        let digits = line.prefix { $0.isNumber }
        guard !digits.isEmpty, line.dropFirst(digits.count).hasPrefix(". ") else { return nil }
        return (true, String(line.dropFirst(digits.count + 2)))
    }

    private static func imageLine(_ line: String) -> MarkdownBlock? {
        guard line.hasPrefix("!["), line.hasSuffix(")"), let middle = line.range(of: "](") else { return nil }
        let alt = String(line[line.index(line.startIndex, offsetBy: 2)..<middle.lowerBound])
        let path = String(line[middle.upperBound..<line.index(before: line.endIndex)])
        return .image(alt: alt, path: path)
    }
}

extension String {
    /// The code spans of a Markdown text, in order: `` `a` `` gives `a`.
    var codeSpans: [String] {
        let parts = components(separatedBy: "`")
        return stride(from: 1, to: parts.count - 1, by: 2).map { parts[$0] }.filter { !$0.isEmpty }
    }
}
