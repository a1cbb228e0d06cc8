import Foundation
import LessonKit

/// One step's DocC tutorial, written from its lesson text, its code and its timeline picture: the bug played, the
/// fix walked a part at a time over the real files, what is still broken, and the lesson's own quiz.
public struct TutorialPage: Sendable {
    public let entry: LessonEntry
    public let document: LessonDocument
    public let walk: FixWalk
    public let quiz: [QuizQuestion]
    /// The file the bug section shows, and the lines of it that the bug section's Swift excerpt quotes.
    public let bugFile: (name: String, lines: [String], quoted: Range<Int>?)
    /// The page's name in the catalog: `Step05`, its URL `tutorials/operationlessons/step05`.
    public var pageName: String { "Step" + entry.id }
    /// The step's picture in `docs/timelines/`, named as its lesson text is.
    public var timeline: String { ((entry.text as NSString).lastPathComponent as NSString).deletingPathExtension + ".svg" }

    public init(entry: LessonEntry, root: URL) throws {
        self.entry = entry
        let text = try String(contentsOf: root.appendingPathComponent(entry.text), encoding: .utf8)
        document = LessonDocument(text: text)
        let previous = LessonCatalog.all.first { $0.number == entry.number - 1 }
        walk = try FixWalk(
            document: document, root: root,
            fallback: previous.map { ("Sources/" + $0.target, "Sources/" + entry.target) })
        quiz = QuizQuestion.questions(in: document)
        // The file the bug section quotes, else the first the fix changes, else the step's controller.
        let excerpts = (document.section("The bug, in code") ?? []).compactMap { block -> [String]? in
            if case .code("swift", let text) = block { return text.components(separatedBy: "\n") }
            return nil
        }
        var candidates = walk.files.map { $0.before ?? $0.after }
        if candidates.isEmpty {
            let folder = "Sources/" + entry.target
            let names = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
            candidates = names.filter { $0.hasSuffix(".swift") && $0 != "main.swift" }.sorted {
                ($0 == "AppsViewController.swift" ? 0 : 1, $0) < ($1 == "AppsViewController.swift" ? 0 : 1, $1)
            }.map { folder + "/" + $0 }
        }
        let path =
            try candidates.first { candidate in
                let lines = try FixWalk.lines(root, candidate)
                return excerpts.contains { Self.find($0, in: lines) != nil }
            } ?? candidates[0]
        let lines = try FixWalk.lines(root, path)
        let quoted = excerpts.lazy.compactMap { Self.find($0, in: lines) }.first
        bugFile = ((path as NSString).lastPathComponent, lines, quoted)
    }

    /// Where `excerpt` stands in `lines`, line for line (indentation aside), or nil.
    static func find(_ excerpt: [String], in lines: [String]) -> Range<Int>? {
        let wanted = excerpt.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let trimmed = lines.map { $0.trimmingCharacters(in: .whitespaces) }
        guard !wanted.isEmpty, trimmed.count >= wanted.count else { return nil }
        for start in 0...(trimmed.count - wanted.count) where trimmed[start] == wanted[0] {
            var index = start
            var matched = 0
            while index < trimmed.count, matched < wanted.count {
                if trimmed[index].isEmpty && !wanted[matched].isEmpty {
                    index += 1
                    continue
                }
                guard trimmed[index] == wanted[matched] else { break }
                index += 1
                matched += 1
            }
            if matched == wanted.count { return start..<index }
        }
        return nil
    }

    /// The code files the page's `@Code` steps show, by resource name.
    public var codeFiles: [(name: String, lines: [String])] {
        var files: [(String, [String])] = []
        var bugPrevious = bugFile.lines
        if let quoted = bugFile.quoted { bugPrevious.removeSubrange(quoted) }
        files.append((bugResource(previous: true), bugPrevious))
        files.append((bugResource(previous: false), bugFile.lines))
        for (index, step) in walk.steps.enumerated() {
            files.append((resource(step: index, previous: true), step.previousLines))
            files.append((resource(step: index, previous: false), step.lines))
        }
        return files
    }

    func bugResource(previous: Bool) -> String { "\(entry.id)-bug\(previous ? "-quoted" : "")-\(bugFile.name)" }

    func resource(step index: Int, previous: Bool) -> String {
        "\(entry.id)-\(index + 1)\(previous ? "-before" : "")-\(walk.steps[index].file.name)"
    }

    /// A `@Step` as the page shows it: its paragraph, and the code file with the lines it highlights.
    public struct PageStep: Sendable {
        public let text: String
        public let code: String?
        public let highlighted: [Int]
        public var highlightedText: [String] = []
    }

    /// Every `@Step` of the page, in order, as `text(next:)` writes them.
    public func steps(next: TutorialPage?) -> [PageStep] { layout(next: next).steps }

    /// The `.tutorial` file.
    public func text(next: TutorialPage?) -> String { layout(next: next).text }

    func layout(next: TutorialPage?) -> (text: String, steps: [PageStep]) {
        var page = PageWriter()
        page.out.open("@Tutorial(time: \(max(10, 5 * walk.steps.count + 5)))")
        let seen = document.section("What you will see") ?? []
        writeIntro(seen, &page)
        writeWatchTheBug(seen, &page)
        writeTheBugInCode(&page)
        writeTheFix(&page)
        writeWhyItWorks(next: next, &page)
        writeQuiz(&page.out)
        page.out.close()
        return (page.out.text, page.steps)
    }

    /// The page's markup and its `@Step`s, written together in reading order.
    struct PageWriter {
        var out = DirectiveWriter()
        var steps: [PageStep] = []

        /// A `@Step` of one paragraph, and its media lines.
        mutating func step(
            _ paragraph: String, _ shown: PageStep? = nil, media: (inout DirectiveWriter) -> Void = { _ in }
        ) {
            out.open("@Step")
            out.paragraph(paragraph)
            steps.append(shown ?? PageStep(text: paragraph, code: nil, highlighted: []))
            media(&out)
            out.close()
        }
    }

    /// The intro: the first paragraph of "What you will see".
    private func writeIntro(_ seen: [MarkdownBlock], _ page: inout PageWriter) {
        let paragraphs = seen.compactMap { block -> String? in
            if case .paragraph(let text) = block { return text }
            return nil
        }
        page.out.open("@Intro(title: \(quoted(document.title)))")
        page.out.text(paragraphs.first ?? entry.lesson)
        page.out.close()
    }

    /// The bug, played: the whole of "What you will see" beside a step per command it runs.
    private func writeWatchTheBug(_ seen: [MarkdownBlock], _ page: inout PageWriter) {
        page.out.open("@Section(title: \"Watch the bug\")")
        page.out.open("@ContentAndMedia")
        page.out.text((document.opening + seen).compactMap(Markdown.docc).joined(separator: "\n\n"))
        page.out.close()
        page.out.open("@Steps")
        for (index, group) in Self.commandGroups(seen).enumerated() {
            page.step(Self.instruction(group)) { out in
                guard index == 0 else { return }
                out.line("@Image(source: \(quoted(timeline)), alt: \(quoted("The timeline of step \(entry.number): what the screen, the main queue and each worker thread did")))")
                out.paragraph("What every thread did, on the story clock: docs/timelines/\(timeline).")
            }
        }
        page.out.close()
        page.out.close()
    }

    /// The bug, in the step before's code: its quoted lines highlighted.
    private func writeTheBugInCode(_ page: inout PageWriter) {
        page.out.open("@Section(title: \"The bug, in code\")")
        page.out.open("@ContentAndMedia")
        let bug = (document.section("The bug, in code") ?? []).filter {
            if case .code("swift", _) = $0 { return false }
            return true
        }
        page.out.text(bug.compactMap(Markdown.docc).joined(separator: "\n\n"))
        page.out.close()
        page.out.open("@Steps")
        let bugStep =
            bugFile.quoted == nil
            ? "The code, in `\(bugFile.name)`." : "The lines that hold the bug, in `\(bugFile.name)`."
        let shown = PageStep(
            text: bugStep, code: bugResource(previous: false),
            highlighted: bugFile.quoted.map { Array(($0.lowerBound + 1)...$0.upperBound) } ?? [],
            highlightedText: bugFile.quoted.map { Array(bugFile.lines[$0]) } ?? [])
        page.step(bugStep, shown) { out in
            out.line(
                "@Code(name: \(quoted(bugFile.name)), file: \(quoted(bugResource(previous: false))), previousFile: \(quoted(bugResource(previous: true))))"
            )
        }
        page.out.close()
        page.out.close()
    }

    /// The fix, a part at a time.
    private func writeTheFix(_ page: inout PageWriter) {
        guard !walk.steps.isEmpty else { return }
        page.out.open("@Section(title: \"Fix it, a part at a time\")")
        page.out.open("@ContentAndMedia")
        let fix = document.section("The fix") ?? []
        var intro = fix.filter {
            switch $0 {
            // A paragraph that leads into the diff or the list of parts has nothing to lead into here.
            case .paragraph(let text): return !text.hasSuffix(":")
            case .code("sh", _): return true
            default: return false
            }
        }.compactMap(Markdown.docc)
        if let library = entry.builds { intro.append("The library's API, page by page: ``\(library.library)``.") }
        page.out.text(intro.joined(separator: "\n\n"))
        page.out.close()
        page.out.open("@Steps")
        var shown = Set<Int>()
        for (index, step) in walk.steps.enumerated() {
            let paragraph =
                (shown.insert(step.part.number).inserted
                    ? Markdown.inline(step.part.text.isEmpty ? "**\(step.part.title).**" : step.part.text)
                    : "**\(Markdown.inline(step.part.title))**, continued in `\(step.file.name)`.")
                + Self.takenOut(step)
            let pageStep = PageStep(
                text: paragraph, code: resource(step: index, previous: false), highlighted: step.highlighted,
                highlightedText: step.highlighted.map { step.lines[$0 - 1] })
            page.step(paragraph, pageStep) { out in
                out.line(
                    "@Code(name: \(quoted(step.file.name)), file: \(quoted(resource(step: index, previous: false))), previousFile: \(quoted(resource(step: index, previous: true))))"
                )
            }
        }
        page.out.close()
        page.out.close()
    }

    /// Why it works, and what is still broken, a step per item; then the next page.
    private func writeWhyItWorks(next: TutorialPage?, _ page: inout PageWriter) {
        page.out.open("@Section(title: \"Why it works, and what is still broken\")")
        page.out.open("@ContentAndMedia")
        let why = (document.section("Why it works") ?? []).compactMap(Markdown.docc).joined(separator: "\n\n")
        page.out.text(why.isEmpty ? entry.lesson : why)
        page.out.close()
        page.out.open("@Steps")
        for block in document.section("Still broken") ?? [] {
            let items: [String]
            switch block {
            case .list(_, let list): items = list
            case .paragraph(let text): items = [text]
            default: items = []
            }
            for item in items { page.step(Markdown.inline(item)) }
        }
        if let next { page.step("Next: <doc:\(next.pageName)>.") }
        page.out.close()
        page.out.close()
    }

    /// The lesson's own quiz, when it has one.
    private func writeQuiz(_ out: inout DirectiveWriter) {
        guard !quiz.isEmpty else { return }
        out.open("@Assessments")
        for question in quiz {
            out.open("@MultipleChoice")
            out.text(Markdown.inline(question.question))
            for choice in question.choices {
                out.open("@Choice(isCorrect: \(choice.isCorrect))")
                out.text(Markdown.inline(choice.answer))
                // DocC never shows `reaction:`; the justification's first words carry it.
                out.open("@Justification(reaction: \(quoted(choice.isCorrect ? "Right" : "Not quite")))")
                out.text(Markdown.inline(choice.justification))
                out.close()
                out.close()
            }
            out.close()
        }
        out.close()
    }

    /// The code lines a step takes out of its file, said in its text: the code pane shows only what is added, and
    /// deleted lines simply vanish from it. Empty when the step takes out no code (comments aside).
    static func takenOut(_ step: CodeStep) -> String {
        let gone = lineChanges(from: step.previousLines, to: step.lines).flatMap { step.previousLines[$0.old] }
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("//") }
        guard let first = gone.first(where: { !$0.contains("`") }) else { return "" }
        let count = gone.count == 1 ? "" : "\(gone.count) lines of code, from "
        return " It takes out or rewrites \(count)`\(shortened(first))`."
    }

    /// A line of code cut after its first words that fit in 40 characters, marked `…` where cut.
    static func shortened(_ line: String) -> String {
        guard line.count > 40 else { return line }
        var words: [Substring] = []
        for word in line.split(separator: " ") {
            guard (words + [word]).joined(separator: " ").count <= 40 else { break }
            words.append(word)
        }
        return (words.isEmpty ? String(line.prefix(40)) : words.joined(separator: " ")) + " …"
    }

    /// A step's one paragraph: the commands of a group in code spans, then the words around them.
    static func instruction(_ group: [MarkdownBlock]) -> String {
        var words: [String] = []
        for block in group {
            switch block {
            case .code("sh", let text):
                let commands = text.components(separatedBy: "\n").map {
                    $0.components(separatedBy: " #").first!.trimmingCharacters(in: .whitespaces)
                }.filter { !$0.isEmpty }
                words.append("Run " + commands.map { "`\($0)`" }.joined(separator: ", then ") + ".")
            case .paragraph(let text): words.append(Markdown.inline(text))
            case .list(_, let items): words += items.map(Markdown.inline)
            default: continue
            }
        }
        return words.joined(separator: " ")
    }

    /// "What you will see", cut at each shell command: the command with the paragraphs that follow it.
    static func commandGroups(_ blocks: [MarkdownBlock]) -> [[MarkdownBlock]] {
        var groups: [[MarkdownBlock]] = []
        var pending: [MarkdownBlock] = []
        for block in blocks {
            if case .image = block { continue }
            if case .code("sh", _) = block {
                groups.append(pending + [block])
                pending = []
            } else if groups.isEmpty || !pending.isEmpty {
                pending.append(block)
            } else {
                groups[groups.count - 1].append(block)
            }
        }
        if !pending.isEmpty {
            if groups.isEmpty { groups.append(pending) } else { groups[groups.count - 1] += pending }
        }
        return groups
    }
}

func quoted(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
}

/// DocC directives, indented as they nest.
struct DirectiveWriter {
    private(set) var text = ""
    private var depth = 0

    mutating func line(_ line: String) {
        text += String(repeating: "    ", count: depth) + line + "\n"
    }

    mutating func open(_ directive: String) {
        line(directive + " {")
        depth += 1
    }

    mutating func close() {
        depth -= 1
        line("}")
    }

    /// One paragraph: what a `@Step` holds before its media (DocC refuses a second).
    mutating func paragraph(_ markdown: String) {
        let words = markdown.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        line(words.isEmpty ? "…" : words)
    }

    /// Markdown inside a directive: each line indented, blank lines kept, never empty.
    mutating func text(_ markdown: String) {
        let body = markdown.trimmingCharacters(in: .whitespacesAndNewlines)
        for line in (body.isEmpty ? "…" : body).components(separatedBy: "\n") {
            self.line(line)
        }
    }
}

/// The lessons' Markdown made fit for a DocC page: links to the repository's files become their text (the site
/// has no such pages), pictures go (the pages show them as `@Image`s).
enum Markdown {
    static func docc(_ block: MarkdownBlock) -> String? {
        switch block {
        case .paragraph(let text): return inline(text)
        case .code(let language, let text): return "```\(language)\n\(text)\n```"
        case .list(let numbered, let items):
            return items.enumerated().map { index, item in
                (numbered ? "\(index + 1). " : "- ") + inline(item).replacingOccurrences(of: "\n", with: "\n   ")
            }.joined(separator: "\n")
        case .heading(let text): return "**\(inline(text))**"
        case .image: return nil
        }
    }

    static func inline(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let open = rest.range(of: "["), let middle = rest[open.upperBound...].range(of: "]("),
            let close = rest[middle.upperBound...].range(of: ")")
        {
            let label = rest[open.upperBound..<middle.lowerBound]
            let target = rest[middle.upperBound..<close.lowerBound]
            guard !label.contains("["), !target.contains(" ") else {
                out += rest[..<open.upperBound]
                rest = rest[open.upperBound...]
                continue
            }
            out += rest[..<open.lowerBound]
            out += target.hasPrefix("http") ? "[\(label)](\(target))" : label
            rest = rest[close.upperBound...]
        }
        return out + rest
    }
}
