import Foundation

/// Which types and functions each line of a learner's Swift file is in, read from its braces: enough to say
/// what a line of theirs is part of (`IconLoader.join(…)`) in their own words, never a parse of Swift.
struct CodeOutline {
    /// A type, a function or a computed property whose body is open.
    struct Scope: Equatable {
        enum Kind { case type, function, property }
        let kind: Kind
        let name: String
        /// The brace depth inside its body.
        let depth: Int
    }

    struct Line {
        /// The scopes open where the line starts, outermost first.
        let within: [Scope]
        /// The brace depth where the line starts.
        let depth: Int
        /// The scope whose body the line opens, if it opens one.
        let opens: Scope?
    }

    let lines: [Line]

    init(_ text: String) {
        let typeLine = #/^\s*(?:[a-z]+(?:\([a-z]+\))? )*(?:class|struct|actor|enum|extension) ([A-Za-z_][A-Za-z0-9_]*)/#
        let functionLine = #/(?:^|\s)(?:func\s+([A-Za-z_][A-Za-z0-9_]*)|(init|deinit)\s*[(?{<])/#
        let computedLine = #/^\s*(?:@[A-Za-z]+ )*(?:[a-z]+(?:\([a-z]+\))? )*var ([A-Za-z_][A-Za-z0-9_]*)\s*:[^=]*\{/#
        var depth = 0
        var open: [Scope] = []
        var pending: (kind: Scope.Kind, name: String)?
        var lines: [Line] = []
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = Self.code(of: rawLine)
            while let scope = open.last, depth < scope.depth { open.removeLast() }
            if let match = line.firstMatch(of: typeLine), !line.contains("func ") {
                pending = (.type, String(match.1))
            } else if let match = line.firstMatch(of: functionLine) {
                pending = (.function, String(match.1 ?? match.2 ?? ""))
            } else if let match = line.firstMatch(of: computedLine) {
                pending = (.property, String(match.1))
            }
            let before = depth
            depth += line.filter { $0 == "{" }.count - line.filter { $0 == "}" }.count
            var opens: Scope?
            if let declared = pending, line.contains("{") {
                opens = Scope(kind: declared.kind, name: declared.name, depth: before + 1)
                pending = nil
            }
            lines.append(Line(within: open, depth: before, opens: opens))
            if let opens { open.append(opens) }
        }
        self.lines = lines
    }

    /// What line `number` (from 1) is part of, as its code would call it: "`IconLoader.join(…)`",
    /// "`ImageDownloadOperation.isFinished`", "`AppsViewController`"; nil outside any type or function.
    func part(atLine number: Int) -> String? {
        guard lines.indices.contains(number - 1) else { return nil }
        let line = lines[number - 1]
        let scopes = line.within + (line.opens.map { [$0] } ?? [])
        // The innermost type, and the innermost member inside it.
        let typeIndex = scopes.lastIndex { $0.kind == .type }
        let type = typeIndex.map { scopes[$0].name }
        let members = scopes[(typeIndex.map { $0 + 1 } ?? 0)...]
        guard let member = members.last(where: { $0.kind != .type }) else { return type.map { "`\($0)`" } }
        return "`" + (type.map { $0 + "." } ?? "") + member.name + (member.kind == .function ? "(…)" : "") + "`"
    }

    /// A string literal, escapes and all. Made once: a regex literal is parsed again each time it is reached, and
    /// this one is reached at every line of every file a check outlines.
    private nonisolated(unsafe) static let stringLiteral = #/"(?:[^"\\]|\\.)*"/#

    /// The line without its comment and its string literals' text, so that their braces are not counted.
    static func code(of line: Substring) -> Substring {
        let unquoted = line.replacing(stringLiteral, with: "\"\"")
        return unquoted.firstRange(of: "//").map { unquoted[..<$0.lowerBound] } ?? unquoted[...]
    }
}
