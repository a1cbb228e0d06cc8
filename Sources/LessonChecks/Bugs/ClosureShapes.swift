import Foundation

/// How the closures of a Swift file nest, read from its braces (comments and
/// string literals aside), so that a hint speaks of a shape only when the
/// learner's code has it. Not a parser: a brace is a closure unless the
/// statement it opens starts with a declaration (`func`, `class`, a computed
/// `var`) or a control keyword (`if`, `for`, `guard … else`).
struct ClosureShapes {
    /// A closure with `[weak self]` whose nearest enclosing closure has no
    /// weak or unowned `self` of its own: that closure holds `self` strongly,
    /// to make the weak one from.
    let weakSelfInsideStrongClosure: Bool

    init(_ source: String) {
        let text = Array(Self.code(of: source))
        var open: [Brace] = []
        var found = false
        for (index, character) in text.enumerated() {
            if character == "}" {
                _ = open.popLast()
                continue
            }
            guard character == "{" else { continue }
            let brace = Brace(at: index, in: text)
            if brace.kind == .closure, brace.capturesSelfWeakly,
                let around = open.last(where: { $0.kind != .control }), around.kind == .closure,
                !around.capturesSelfWeakly
            {
                found = true
            }
            open.append(brace)
        }
        weakSelfInsideStrongClosure = found
    }

    /// An opening brace: what it opens, and (for a closure) how it captures `self`.
    private struct Brace {
        enum Kind { case closure, control, declaration }
        let kind: Kind
        let capturesSelfWeakly: Bool

        init(at index: Int, in text: [Character]) {
            let after = String(text[(index + 1)...].prefix(80)).trimmingCharacters(in: .whitespacesAndNewlines)
            let captures = after.hasPrefix("[") ? String(after.prefix { $0 != "]" }) : ""
            capturesSelfWeakly = captures.range(of: #"\b(weak|unowned)(\(\w+\))?\s+self\b"#, options: .regularExpression) != nil
            if !captures.isEmpty {
                kind = .closure
            } else if let head = Self.head(before: index, in: text) {
                kind = Self.kind(of: head)
            } else {
                kind = .closure
            }
        }

        private static let control: Set<String> = [
            "if", "guard", "else", "for", "while", "repeat", "do", "catch", "switch", "defer",
        ]
        private static let declarations: Set<String> = [
            "func", "init", "deinit", "class", "struct", "enum", "extension", "protocol", "actor", "subscript",
            "get", "set", "willSet", "didSet",
        ]
        private static let modifiers: Set<String> = [
            "override", "private", "fileprivate", "public", "internal", "open", "final", "static", "mutating",
            "nonmutating", "required", "convenience", "lazy", "nonisolated", "dynamic", "indirect",
        ]

        /// What the statement `head` opens with its brace.
        private static func kind(of head: String) -> Kind {
            let words = head.split(whereSeparator: { !$0.isLetter && !$0.isNumber && $0 != "_" && $0 != "@" })
            guard
                let first = words.first(where: { !modifiers.contains(String($0)) && !$0.hasPrefix("@") })
                    .map(String.init)
            else { return .closure }
            if control.contains(first) { return .control }
            if declarations.contains(first) { return .declaration }
            // `var image: Image? {` is a computed property; `let operation = BlockOperation {` a closure.
            if first == "var" || first == "let" { return head.contains("=") ? .closure : .declaration }
            return .closure
        }

        /// The statement before the brace at `index`, back to its start
        /// (parentheses may span lines); nil when the brace is an argument
        /// (`addOperation({`, `completion: {` inside a call's parentheses).
        private static func head(before index: Int, in text: [Character]) -> String? {
            var depth = 0
            var start = index
            while start > 0 {
                let character = text[start - 1]
                if character == ")" || character == "]" {
                    depth += 1
                } else if character == "(" || character == "[" {
                    if depth == 0 { return nil }
                    depth -= 1
                } else if depth == 0, character == "{" || character == "}" || character == ";" {
                    break
                } else if depth == 0, character == "\n",
                    !String(text[start..<index]).trimmingCharacters(in: .whitespaces).isEmpty
                {
                    break
                }
                start -= 1
            }
            return String(text[start..<index])
        }
    }

    /// `source` with its comments and string literals blanked out, so that
    /// their braces do not count.
    private static func code(of source: String) -> String {
        var result = ""
        var characters = source[...]
        while let character = characters.first {
            if characters.hasPrefix("//") {
                let line = characters.prefix { $0 != "\n" }
                result += String(repeating: " ", count: line.count)
                characters = characters.dropFirst(line.count)
            } else if characters.hasPrefix("/*") {
                let end = characters.range(of: "*/")?.upperBound ?? characters.endIndex
                result += characters[..<end].map { $0 == "\n" ? "\n" : " " }
                characters = characters[end...]
            } else if characters.hasPrefix("\"\"\"") {
                let rest = characters.dropFirst(3)
                let end = rest.range(of: "\"\"\"")?.upperBound ?? rest.endIndex
                result += characters[..<end].map { $0 == "\n" ? "\n" : " " }
                characters = characters[end...]
            } else if character == "\"" {
                var rest = characters.dropFirst()
                while let next = rest.first, next != "\"", next != "\n" {
                    rest = rest.dropFirst(next == "\\" ? 2 : 1)
                }
                let end = rest.isEmpty ? rest.endIndex : rest.index(after: rest.startIndex)
                result += String(repeating: " ", count: characters[..<end].count)
                characters = characters[end...]
            } else {
                result.append(character)
                characters = characters.dropFirst()
            }
        }
        return result
    }
}

extension LearnerCode {
    /// Some file has a `[weak self]` closure inside a closure that holds `self` (see `ClosureShapes`).
    var hasWeakSelfInsideStrongClosure: Bool {
        files.values.contains { ClosureShapes($0).weakSelfInsideStrongClosure }
    }

    /// Some closure captures `[unowned self]` (or `unowned(unsafe)`).
    var capturesSelfUnowned: Bool { matches(#"\[[^\]]*\bunowned(\(\w+\))?\s+self\b"#) }

    /// Some property is `unowned` (the tutorials' `assign` delegate).
    var hasUnownedProperty: Bool { matches(#"\bunowned(\(\w+\))?\s+(var|let)\b"#) }

    private func matches(_ pattern: String) -> Bool {
        files.values.contains { $0.range(of: pattern, options: .regularExpression) != nil }
    }
}
