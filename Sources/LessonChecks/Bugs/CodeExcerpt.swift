import Foundation

/// Lines of a fixing step's file that a hint's last level quotes: named by where they start and end, and read from
/// the file when the hint is printed, so the hint always shows the step's code as it is, never a copy of it.
/// Comment lines are left out and the lines are indented as the first one is.
public struct CodeExcerpt: Sendable, Equatable, CustomStringConvertible {
    /// The file's name, found in the fixing step's folders (its own and its libraries').
    public let file: String
    /// The excerpt's first line, as the file has it (spacing at either end aside).
    public let first: String
    /// Where it ends: at `first` itself, at the brace that closes what `first` opens, or at a line of its own.
    let end: End

    enum End: Sendable, Equatable {
        case firstLine, firstLinesBlock
        /// The first line after `first` reading this; where that line opens a block, its closing brace.
        case line(String)
    }

    /// One line.
    public static func line(_ text: String, in file: String) -> CodeExcerpt {
        CodeExcerpt(file: file, first: text, end: .firstLine)
    }

    /// The declaration or statement that `opening` opens, to its closing brace.
    public static func block(_ opening: String, in file: String) -> CodeExcerpt {
        CodeExcerpt(file: file, first: opening, end: .firstLinesBlock)
    }

    /// From the line `first` to the first line after it reading `last`, and where `last` opens a block, to its
    /// closing brace.
    public static func lines(from first: String, through last: String, in file: String) -> CodeExcerpt {
        CodeExcerpt(file: file, first: first, end: .line(last))
    }

    public var description: String { "the lines of \(file) from \"\(first)\"" }

    /// The excerpt in `source` (a file's text), or nil where `source` has no such lines.
    public func lines(in source: String) -> [String]? {
        let lines = source.components(separatedBy: "\n")
        let trimmed = lines.map { $0.trimmingCharacters(in: .whitespaces) }
        guard let start = trimmed.firstIndex(of: first) else { return nil }
        var last: Int
        switch end {
        case .firstLine: last = start
        case .firstLinesBlock:
            guard let close = Self.closingBrace(of: start, in: lines) else { return nil }
            last = close
        case .line(let text):
            guard let found = trimmed[(start + 1)...].firstIndex(of: text) else { return nil }
            last = Self.closingBrace(of: found, in: lines) ?? found
        }
        let kept = lines[start...last].filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
        let indentation = kept[kept.startIndex].prefix { $0 == " " }.count
        var quoted: [String] = []
        for line in kept {
            let blank = line.trimmingCharacters(in: .whitespaces).isEmpty
            if blank && quoted.last == "" { continue }
            quoted.append(blank ? "" : String(line.dropFirst(min(indentation, line.prefix { $0 == " " }.count))))
        }
        return quoted.map { String($0.reversed().drop { $0 == " " }.reversed()) }
    }

    /// The excerpt read from the first of `folders` that holds its file, as one text.
    public func quoted(from folders: [URL]) throws -> String {
        let manager = FileManager.default
        guard
            let url = folders.map({ $0.appendingPathComponent(file) }).first(where: {
                manager.fileExists(atPath: $0.path)
            })
        else {
            throw Unreadable(
                description: "\(file) is in none of \(folders.map(\.lastPathComponent).joined(separator: ", "))")
        }
        let source = try String(contentsOf: url, encoding: .utf8)
        guard let lines = lines(in: source) else {
            let hasFirst = source.components(separatedBy: "\n").contains {
                $0.trimmingCharacters(in: .whitespaces) == first
            }
            throw Unreadable(
                description: hasFirst
                    ? "\(url.path) no longer has the end of the lines from \"\(first)\" that the hint quotes"
                    : "\(url.path) no longer has a line reading \"\(first)\" where the hint expects")
        }
        return lines.joined(separator: "\n")
    }

    public struct Unreadable: Error, CustomStringConvertible {
        public let description: String
    }

    /// The line of the brace that closes a block opened on line `index`, or nil where that line opens none.
    static func closingBrace(of index: Int, in lines: [String]) -> Int? {
        func code(_ line: String) -> Substring { line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...] }
        guard code(lines[index]).trimmingCharacters(in: .whitespaces).hasSuffix("{") else { return nil }
        var depth = 0
        for line in index..<lines.count {
            for character in code(lines[line]) {
                if character == "{" { depth += 1 } else if character == "}" { depth -= 1 }
            }
            if depth <= 0 { return line }
        }
        return nil
    }
}
