import Foundation
import LessonKit
import Testing

/// Every lesson text has one shape, a short core, and quotes its diffs as
/// `diff -u` prints them today; the index links every step.
@Suite struct LessonTextTests {
    static let root = Rig.packageRoot
    static let headings = [
        "## What you will see", "## The bug, in code", "## The fix", "## Why it works", "## Still broken",
        "## Try it", "## Going deeper", "## Check yourself",
    ]

    /// The lesson of each step in the catalog.
    static var lessons: [String] { LessonCatalog.all.map(\.text) }

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test(arguments: lessons)
    func everyLessonHasTheSameHeadingsInTheSameOrder(_ path: String) throws {
        let text = try Self.text(path)
        let title = text.prefix { $0 != "\n" }
        let step = try #require(LessonCatalog.all.first { $0.text == path }).number
        #expect(title.hasPrefix("# Step \(step) · "), "\(title)")
        #expect(title.unicodeScalars.contains { (0x4E00...0x9FFF).contains($0.value) }, "no Chinese name: \(title)")
        let found = text.split(separator: "\n").filter { $0.hasPrefix("## ") }.map(String.init)
        #expect(found == Self.headings)
    }

    /// The core, the title to "Going deeper", is a five-minute read: at most
    /// 1,200 words counted as `wc -w` counts, code blocks and diffs included
    /// (a reader reads them too), HTML comments left out.
    @Test(arguments: lessons)
    func everyLessonsCoreIsAt1200WordsAtMost(_ path: String) throws {
        let text = try Self.text(path)
        let core = text.components(separatedBy: "## Going deeper").first ?? text
        let words = Self.withoutComments(core).split(whereSeparator: \.isWhitespace).count
        #expect(words <= 1200, "\(path): its core has \(words) words")
    }

    /// A ```diff block right after a ```sh block holding one `diff -u A B`: each
    /// line it adds or removes is in what that command prints today, in order.
    @Test(arguments: lessons)
    func everyQuotedDiffIsTheRealOne(_ path: String) throws {
        let text = try Self.text(path)
        let pattern = try Regex(#"```sh\n(diff -u [^\n]+)\n```\s*```diff\n(.*?)```"#).dotMatchesNewlines()
        for match in text.matches(of: pattern) {
            let command = String(match.output[1].substring ?? "")
            let block = String(match.output[2].substring ?? "")
            var diff = ChildProcess(command: command.split(separator: " ").map(String.init))
            diff.directory = Self.root
            let real = try diff.run().output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var position = 0
            for line in block.split(separator: "\n").map(String.init)
            where (line.hasPrefix("+") || line.hasPrefix("-")) && !line.hasPrefix("+++") && !line.hasPrefix("---") {
                guard let index = real[position...].firstIndex(of: line) else {
                    Issue.record("\(path): not in `\(command)`, or out of order: \(line)")
                    break
                }
                position = index + 1
            }
        }
    }

    @Test func theIndexLinksEveryStep() throws {
        let index = try Self.text("Lessons/README.md")
        for entry in LessonCatalog.all {
            let file = URL(fileURLWithPath: entry.text).lastPathComponent
            #expect(index.contains("(\(file))") || index.contains("(./\(file))"), "Lessons/README.md lacks \(file)")
        }
    }

    /// The text without its HTML comments.
    static func withoutComments(_ text: String) -> String {
        text.replacing(#/<!--.*?-->/#.dotMatchesNewlines(), with: "")
    }
}
