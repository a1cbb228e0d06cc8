import Foundation
import TableKit
import TerminalKit

/// What `lessons hint` tells about one bug, a level at a time, as a teacher
/// would: first a question and where to look, then the API that fixes it, and
/// only at the last level the code, as the step that fixes the bug has it.
public struct Hints: Sendable {
    /// Level 1: a question that points at the cause.
    public let question: String
    /// Level 1: a sentence added to the question only for code of its shape.
    public let aside: CodeAside?
    /// Level 1: where in the exercise's code to look.
    public let place: CodePlace
    /// Level 2: the API that fixes it, and how it is used.
    public let api: String
    /// Level 3: the fixing step's code, read from its files when printed.
    public let code: [CodeExcerpt]

    public static let levels = 3

    public init(question: String, aside: CodeAside? = nil, place: CodePlace, api: String, code: [CodeExcerpt]) {
        self.question = question
        self.aside = aside
        self.place = place
        self.api = api
        self.code = code
    }

    /// Level 1 in a line: the question, and where to look.
    public var nudge: String { "\(question) Look at \(place)." }

    /// The question, with its aside where `code` has the aside's shape.
    public func question(in code: LearnerCode?) -> String {
        guard let aside, let code, aside.applies(code) else { return question }
        return "\(question) \(aside.sentence)"
    }

    /// Level 1 for the learner's own code: the place by its name where that
    /// code has it, by its role where it does not (a controller whose
    /// download ends in `iconArrived` has no `downloadFinished` to look at).
    public func nudge(in code: LearnerCode?) -> String {
        guard let code else { return nudge }
        guard let look = place.said(in: code) else { return question(in: code) }
        return "\(question(in: code)) Look at \(look)."
    }
}

/// A sentence of a hint true only of code of some shape ("a `[weak self]`
/// on an inner closure …"), said only to code that has it.
public struct CodeAside: Sendable {
    public let sentence: String
    let applies: @Sendable (LearnerCode) -> Bool

    init(_ sentence: String, when applies: @escaping @Sendable (LearnerCode) -> Bool) {
        self.sentence = sentence
        self.applies = applies
    }
}

/// The learner's files, read so that a hint names only what is in them.
public struct LearnerCode: Sendable {
    /// Each file's text, by file name.
    let files: [String: String]
    /// Each file's text without its spacing, made once: every hint's places are looked for in it.
    private let unspacedFiles: [String: String]

    public init(files: [String: String]) {
        self.files = files
        unspacedFiles = files.mapValues(Self.unspaced)
    }

    /// The Swift files under `folder`; none when it cannot be read.
    public static func read(_ folder: URL) -> LearnerCode {
        let found = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        var files: [String: String] = [:]
        while let url = found?.nextObject() as? URL {
            guard url.pathExtension == "swift", let text = try? String(contentsOf: url, encoding: .utf8) else {
                continue
            }
            files[url.lastPathComponent] = text
        }
        return LearnerCode(files: files)
    }

    /// The file that has `name`, spacing aside: `file` first, where the step has it.
    func file(containing name: String, preferring file: String) -> String? {
        let wanted = Self.unspaced(name)
        return ([file] + files.keys.sorted()).first { unspacedFiles[$0]?.contains(wanted) ?? false }
    }

    /// Whether any file has one of `texts`, spacing aside.
    func mentions(_ texts: [String]) -> Bool {
        let wanted = texts.map(Self.unspaced)
        return unspacedFiles.values.contains { text in wanted.contains { text.contains($0) } }
    }

    private static func unspaced(_ text: String) -> String {
        String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) }.map(Character.init))
    }
}

/// Where to look: a name (a function, a property, a line's start) in a file
/// of the exercise's code, or of the step's own code when the learner has
/// to write it.
public struct CodePlace: Sendable, CustomStringConvertible {
    public let file: String
    /// As the code writes it: `cellForRowAt`, `func roll(`.
    public let name: String
    /// What the place does, for code that names it otherwise or lacks it:
    /// "where your download ends", "where a row's cell asks for its icon".
    /// It is said only to code without `name`, so it must be true of any code
    /// the exercise may hold, or presume what `presumes` finds.
    public let role: String?
    /// What the role presumes the code has (a hand-over to the main queue,
    /// files on disk), and what is said to code without it.
    public let presumes: Presumption?

    public init(_ name: String, in file: String, role: String? = nil, presumes: Presumption? = nil) {
        self.name = name
        self.file = file
        self.role = role
        self.presumes = presumes
    }

    public var description: String { "`\(name)` in \(file)" }

    /// Where to look in `code`: the name and the file that has it, else the
    /// role, or what is said where the code lacks what the role presumes.
    func said(in code: LearnerCode) -> String? {
        if let found = code.file(containing: name, preferring: file) { return "`\(name)` in \(found)" }
        guard let presumes, !code.mentions(presumes.mentions) else { return role }
        return presumes.otherwise
    }

    /// Every text `said(in:)` may give for code without `name`: the role, and what replaces it.
    public var roles: [String] { [role, presumes?.otherwise].compactMap { $0 } }

    /// A kind of code a role speaks of, known by words its code has
    /// (`OperationQueue.main`, `DispatchQueue.main`, `MainActor`), and the
    /// place said to code with none of them.
    public struct Presumption: Sendable {
        public let mentions: [String]
        public let otherwise: String

        public init(_ mentions: [String], otherwise: String) {
            self.mentions = mentions
            self.otherwise = otherwise
        }

        /// A hand-over of the icon to the main queue.
        static let mainQueue = Presumption(
            ["OperationQueue.main", "DispatchQueue.main", "MainActor"],
            otherwise: "where your download's icon reaches a cell")
        /// Icons kept after their download, in memory.
        static let keptIcons = ["cache", "Cache", "var image", ": Image]"]
        /// Files written to disk by the learner's own code (a library's writes name their files themselves).
        static let writtenFiles = ["write(to", "createFile("]
    }
}

/// A bug's hints as `lessons hint` prints them, up to a level, with what the
/// last check saw of it.
public enum HintText {
    /// One bug: its name, what the last check measured and saw (if it
    /// failed), then level 1 (the question, where to look; what the check
    /// saw instead, when it recognised another shape), level 2 (the why
    /// and the API), level 3 (the code, read from `step`'s folders `fix`: its excerpts, "…" between
    /// two, since each is from another place). A line of code too long for
    /// `width` is broken where Swift reads on (`CodeLine.fitted`). Given the
    /// learner's files (`code`), the place to look is named only where they
    /// have it, and otherwise by its role (`CodePlace.said(in:)`).
    public static func bug(
        _ bug: BugText, level: Int, lastCheck: CheckResult?, number: String, step: String, fix: [URL],
        width: Int? = nil, code: LearnerCode? = nil
    ) -> [String] {
        // A row the check titled by what it measured (a race on a record, not on a cache) keeps that title.
        var lines = ["\(number)\(lastCheck.flatMap { $0.passed ? nil : $0.shape } ?? bug.name)"]
        var diagnosed = false
        if let lastCheck, !lastCheck.passed {
            lines.append("   Last check: \(lastCheck.measured)")
            if let seen = lastCheck.diagnosis {
                lines.append("   Seen:  \(seen)")
                // The check recognised the evidence: its own words say why, and what to do, in place of
                // the bug's own question (a pool to add, for code whose pool is there and did otherwise).
                lines.append("   So:    \(lastCheck.hint)")
                diagnosed = true
            } else if !lastCheck.wasMeasured {
                // Not measured (apart from another cause, or not reached): the bug's own question would name a
                // cause the evidence does not show; the check's hint says what to do first.
                lines.append("   So:    \(lastCheck.hint)")
                diagnosed = true
            }
        }
        if !diagnosed {
            lines.append("   Ask:   \(bug.hints.question(in: code))")
            let place = bug.hints.place
            let look: String? = if let code { place.said(in: code) } else { place.description }
            if let look { lines.append("   Look:  \(look)") }
        }
        if level >= 2 {
            lines.append("   Why:   \(bug.why)")
            lines.append("   Use:   \(bug.hints.api)")
        }
        if level >= 3 {
            lines.append("   Code, as \(step) has it:")
            for (index, excerpt) in bug.hints.code.enumerated() {
                if index > 0 { lines.append("       …") }
                let snippet: String
                do {
                    snippet = try excerpt.quoted(from: fix)
                } catch {
                    let unread = "       (Not shown: \(error).)"
                    lines +=
                        width.map { TerminalText.wrappedLine(unread, width: $0, continuation: "        ") } ?? [unread]
                    continue
                }
                for line in snippet.split(separator: "\n", omittingEmptySubsequences: false).map({
                    $0.isEmpty ? "" : "       " + $0
                }) {
                    lines += width.map { CodeLine.fitted(line, width: $0) } ?? [line]
                }
            }
        }
        lines.append("   Fixed means: \(bug.expected)")
        return lines
    }
}

/// A line of Swift fitted to a width the way a person would break it: after
/// a comma, before `->` or an operator, after an opening brace or
/// parenthesis, never inside a string; each part after the first under the
/// line's indentation and four more columns.
public enum CodeLine {
    public static func fitted(_ line: String, width: Int) -> [String] {
        let continuation = String(line.prefix { $0 == " " }) + "    "
        var lines: [String] = []
        var rest = line
        while TerminalText.width(of: rest) > width,
            let cut = breakPoint(in: rest, width: width, after: continuation.count)
        {
            lines.append(String(rest[..<cut].reversed().drop { $0 == " " }.reversed()))
            rest = continuation + rest[cut...].drop { $0 == " " }
        }
        // A word longer than the width (a long name) is broken between words at last.
        return lines + TerminalText.wrappedLine(rest, width: width, continuation: continuation)
    }

    /// Where a part may end: the places a person breaks Swift, best first.
    private static let breaks: [(text: String, breaksAfter: Bool)] = [
        (", ", true), (" -> ", false), (" && ", false), (" || ", false), (" ?? ", false), (" + ", false),
        ("{ ", true), ("(", true),
    ]

    /// The best place to end the first part of `line` within `width`, past
    /// its indentation (`after` columns); nil when there is none.
    private static func breakPoint(in line: String, width: Int, after: Int) -> String.Index? {
        var inString = false
        var found: [(rank: Int, index: String.Index)] = []
        var index = line.startIndex
        var column = 0
        while index < line.endIndex, column <= width {
            if line[index] == "\"" { inString.toggle() }
            if !inString, column > after {
                for (rank, place) in breaks.enumerated() where line[index...].hasPrefix(place.text) {
                    let end = place.breaksAfter ? line.index(index, offsetBy: place.text.count) : index
                    if TerminalText.width(of: line[..<end]) <= width { found.append((rank, end)) }
                }
            }
            column += TerminalText.width(of: line[index])
            index = line.index(after: index)
        }
        // The best kind of place; of a comma or an operator the last that fits, of a brace the first.
        guard let rank = found.map(\.rank).min() else { return nil }
        let places = found.filter { $0.rank == rank }.map(\.index)
        return breaks[rank].text == "{ " ? places.first : places.last
    }
}
