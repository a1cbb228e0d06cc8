import Foundation
import LessonKit
import Testing

/// Every lesson text has one shape, a short core, a short "Going deeper" and
/// its key points in Chinese; the index links every step. (Its quotes are
/// checked by `LessonQuoteTests`.)
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

    /// The core is what a learner reads before trying the step: the title to
    /// "Going deeper", at most 1,200 words counted as `wc -w` counts, code blocks
    /// and diffs included (a reader reads them too). Left out: HTML comments
    /// (the figure lists and Try-it breaks, which nobody reads) and the
    /// 本节要点 box, the same core restated in Chinese for the tutorials' readers.
    @Test(arguments: lessons)
    func everyLessonsCoreIsAt1200WordsAtMost(_ path: String) throws {
        let words = Self.words(Self.core(of: try Self.text(path)))
        #expect(words <= 1200, "\(path): its core has \(words) words")
    }

    /// "Going deeper", from its heading to the next heading or the end, HTML
    /// comments left out: at most 800 words.
    @Test(arguments: lessons)
    func everyLessonsGoingDeeperIsAt800WordsAtMost(_ path: String) throws {
        let text = try Self.text(path)
        let start = try #require(text.range(of: "\n## Going deeper\n"), "\(path) has no Going deeper")
        let rest = text[start.upperBound...]
        let section = rest.range(of: "\n## ").map { rest[..<$0.lowerBound] } ?? rest
        let words = Self.words(String(section))
        #expect(words <= 800, "\(path): its Going deeper has \(words) words")
    }

    /// Right after the opening paragraphs, before "What you will see", a box of
    /// key points in Chinese: a quoted block headed **本节要点** with 5 to 8 points.
    @Test(arguments: lessons)
    func everyLessonOpensWithItsKeyPointsInChinese(_ path: String) throws {
        let text = try Self.text(path)
        let opening = try #require(text.components(separatedBy: "\n## ").first)
        let box = try #require(Self.keyPoints(in: opening), "\(path): no 本节要点 box before its first section")
        let points = box.split(separator: "\n").filter { $0.hasPrefix("> - ") }
        #expect((5...8).contains(points.count), "\(path): 本节要点 has \(points.count) points")
        // Each point opens with its label (问题, 实测, 解决, API, 陷阱 …); the prose is Chinese, the API names are code.
        for point in points {
            #expect(point.contains(/^> - \*\*(API|\p{Han}+)\*\*：/), "\(path): a key point has no label: \(point)")
        }
        let chinese = box.unicodeScalars.filter { (0x4E00...0x9FFF).contains($0.value) }.count
        #expect(chinese >= 100, "\(path): 本节要点 has \(chinese) Chinese characters, not a summary in Chinese")
    }

    /// The 本节要点 box: its quoted lines, from its heading to the first line that is not quoted.
    static func keyPoints(in text: String) -> String? {
        guard let start = text.range(of: "> **本节要点**\n") else { return nil }
        let lines = text[start.lowerBound...].split(separator: "\n", omittingEmptySubsequences: false)
        return lines.prefix { $0.hasPrefix(">") }.joined(separator: "\n")
    }

    /// The text up to "Going deeper", without HTML comments or the 本节要点 box.
    static func core(of text: String) -> String {
        var core = withoutComments(text.components(separatedBy: "## Going deeper").first ?? text)
        if let box = keyPoints(in: core), let range = core.range(of: box) { core.removeSubrange(range) }
        return core
    }

    static func words(_ text: String) -> Int {
        withoutComments(text).split(whereSeparator: \.isWhitespace).count
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
