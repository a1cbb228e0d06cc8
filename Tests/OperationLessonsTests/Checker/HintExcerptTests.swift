import Foundation
import LessonKit
import TableKit
import TerminalKit
import Testing

@testable import LessonChecks

/// The code of a hint's last level as a terminal shows it: excerpts from
/// other places told apart by "…", lines broken only where Swift reads on.
@Suite struct HintExcerptTests {
    /// Two excerpts in a row are from different places of the fixing code:
    /// were they one after the other there, "…" between them would be untrue.
    @Test(arguments: HintTests.cases)
    func excerptsInARowAreNotAdjacentInTheCode(_ hint: HintTests.Case) throws {
        let fix = try HintTests.sources(hint.fixedIn).values.map(HintTests.normalized)
        let quoted = try HintTests.quoted(hint)
        for (first, second) in zip(quoted, quoted.dropFirst()) {
            let together = HintTests.normalized(first) + " " + HintTests.normalized(second)
            #expect(!fix.contains { $0.contains(together) }, "one excerpt, not two:\n\(first)\n\(second)")
        }
    }

    /// Where a person breaks a line of Swift: after a comma, an opening brace
    /// or parenthesis, or before an operator.
    static func breaksWhereSwiftReadsOn(_ part: String, _ next: String) -> Bool {
        let next = next.drop { $0 == " " }
        return [",", "{", "("].contains { part.hasSuffix($0) }
            || ["->", "&&", "||", "??", "+"].contains { next.hasPrefix($0) }
    }

    @Test(arguments: [80, 60])
    func everyCodeLineFitsAndBreaksOnlyWhereSwiftReadsOn(width: Int) throws {
        func spaceless(_ text: String) -> String { String(text.filter { !$0.isWhitespace }) }
        for hint in HintTests.cases {
            let fix = hint.fixedIn.map(Rig.packageRoot.appendingPathComponent)
            let lines = HintText.bug(
                hint.text, level: 3, lastCheck: nil, number: "1. ", step: "step 7", fix: fix, width: width)
            let start = try #require(lines.firstIndex { $0.hasPrefix("   Code, as") })
            let code = Array(lines[(start + 1)...].prefix { !$0.hasPrefix("   Fixed means") })
            for line in code { #expect(TerminalText.width(of: line) <= width, "too wide: \(line)") }
            // The excerpts, as written, with "…" between: nothing lost or added but the breaks.
            let written = try HintTests.quoted(hint).joined(separator: "\n…\n")
            #expect(spaceless(code.joined()) == spaceless(written), "\(hint.text.name)")
            for line in written.split(separator: "\n") {
                let parts = CodeLine.fitted("       " + line, width: width)
                for (part, next) in zip(parts, parts.dropFirst()) {
                    #expect(
                        Self.breaksWhereSwiftReadsOn(part, next),
                        "\(hint.text.name): broken mid-line:\n\(part)\n\(next)")
                }
            }
        }
    }
}

/// A hint's code is named by where it starts and ends and read from the fixing step's file when printed: what
/// each way of naming it reads, and the sentence printed in its place where the file no longer has it.
@Suite struct CodeExcerptTests {
    static let source = """
        final class Loader {
            // Kept for the whole run.
            var cache: [String: Int] = [:]

            func load(_ key: String) {
                if let hit = cache[key] { // a hit
                    use(hit)
                }
                fetch(key)
            }
        }
        """

    @Test func eachFormReadsItsLinesWithoutComments() {
        let file = "Loader.swift"
        #expect(CodeExcerpt.line("final class Loader {", in: file).lines(in: Self.source) == ["final class Loader {"])
        #expect(
            CodeExcerpt.block("if let hit = cache[key] { // a hit", in: file).lines(in: Self.source)
                == ["if let hit = cache[key] { // a hit", "    use(hit)", "}"])
        // From a line to a later one, and to the closing brace of a block the later one opens.
        #expect(
            CodeExcerpt.lines(from: "var cache: [String: Int] = [:]", through: "func load(_ key: String) {", in: file)
                .lines(in: Self.source)
                == [
                    "var cache: [String: Int] = [:]", "", "func load(_ key: String) {",
                    "    if let hit = cache[key] { // a hit", "        use(hit)", "    }", "    fetch(key)", "}",
                ])
        #expect(
            CodeExcerpt.lines(from: "final class Loader {", through: "var cache: [String: Int] = [:]", in: file)
                .lines(in: Self.source) == ["final class Loader {", "    var cache: [String: Int] = [:]"])
        #expect(CodeExcerpt.line("var cache: [String: Int]", in: file).lines(in: Self.source) == nil)
        #expect(CodeExcerpt.block("fetch(key)", in: file).lines(in: Self.source) == nil)
    }

    @Test func anExcerptTheFileNoLongerHasIsOneSentenceInItsPlace() throws {
        let folder = try ScratchFolder.make("excerpt")
        defer { ScratchFolder.remove(folder) }
        try Self.source.write(to: folder.appendingPathComponent("Loader.swift"), atomically: true, encoding: .utf8)
        let hints = Hints(
            question: "Where is it kept?", place: CodePlace("var cache", in: "Loader.swift", role: "the cache"),
            api: "A dictionary.",
            code: [
                .line("var cache: [String: Int] = [:]", in: "Loader.swift"),
                .line("var store: [String: Int] = [:]", in: "Loader.swift"), .line("fetch()", in: "Fetcher.swift"),
                .lines(from: "final class Loader {", through: "func save() {", in: "Loader.swift"),
            ])
        let bug = BugText(name: "a cache", expected: "kept", why: "It is kept.", hints: hints)
        let lines = HintText.bug(bug, level: 3, lastCheck: nil, number: "1. ", step: "step 4", fix: [folder])
        let code = Array(lines.drop { !$0.hasPrefix("   Code, as step 4 has it:") }.dropFirst().dropLast())
        #expect(
            code == [
                "       var cache: [String: Int] = [:]", "       …",
                "       (Not shown: \(folder.path)/Loader.swift no longer has a line reading \"var store: [String: Int] = [:]\" where the hint expects.)",
                "       …", "       (Not shown: Fetcher.swift is in none of \(folder.lastPathComponent).)", "       …",
                "       (Not shown: \(folder.path)/Loader.swift no longer has the end of the lines from \"final class Loader {\" that the hint quotes.)",
            ])
    }
}
