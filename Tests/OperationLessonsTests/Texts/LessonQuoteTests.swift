import Foundation
import LessonKit
import Testing

/// Every piece of code a lesson quotes is the code as it is today. A ```swift
/// block names its file in a `<!-- quote PATH -->` comment on the line before
/// it (or says `<!-- sketch: … -->`, code of the text's own); a ```diff block
/// follows the ```sh block with its `diff -u A B`. A line `…` in a quote skips
/// lines; every other run of lines must be in the file (or in what `diff -u`
/// prints, hunk headers included) as quoted, one after another, and the runs in
/// the order quoted. Lines are compared without trailing spaces (a text editor
/// drops the one space of an empty context line); from `diff -u` of two folders
/// the per-file `diff -u A B` lines and the dates after the file names are left
/// out. One changed line in the sources fails its quote.
@Suite struct LessonQuoteTests {
    static let root = Rig.packageRoot
    static var lessons: [String] { LessonCatalog.all.map(\.text) }

    static func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The quote's runs of lines, split at the `…` lines, found in `source` in
    /// order; the first run not found there, or nil.
    static func missingRun(of quote: String, in source: [String]) -> [String]? {
        let source = source.map(Self.trimmed)
        var runs: [[String]] = [[]]
        for line in quote.split(separator: "\n", omittingEmptySubsequences: false).map(Self.trimmed) {
            if line.trimmingCharacters(in: .whitespaces) == "…" { runs.append([]) } else { runs[runs.count - 1].append(line) }
        }
        // The block's closing fence leaves one empty line after the last.
        if runs[runs.count - 1].last == "" { runs[runs.count - 1].removeLast() }
        var position = 0
        for run in runs where !run.isEmpty {
            guard
                let start = (position..<max(position, source.count - run.count + 1)).first(where: {
                    Array(source[$0..<$0 + run.count]) == run
                })
            else { return run }
            position = start + run.count
        }
        return nil
    }

    static func trimmed<S: StringProtocol>(_ line: S) -> String {
        String(line[..<(line.lastIndex { $0 != " " }.map(line.index(after:)) ?? line.startIndex)])
    }

    /// Each ```swift block of a text, with the line above it (where a quote names its file), read line by line: a
    /// regex tried at every position of a lesson text was most of this suite's time.
    static func swiftBlocks(in text: String) -> [(label: String, code: String)] {
        let lines = text.components(separatedBy: "\n")
        var blocks: [(String, String)] = []
        var index = 1
        while index < lines.count {
            guard lines[index] == "```swift" else {
                index += 1
                continue
            }
            guard let end = lines[(index + 1)...].firstIndex(where: { $0.hasPrefix("```") }) else { break }
            blocks.append((lines[index - 1], lines[(index + 1)..<end].map { $0 + "\n" }.joined()))
            index = end + 1
        }
        return blocks
    }

    @Test(arguments: lessons)
    func everyQuotedSwiftExcerptIsInItsFileAsQuoted(_ path: String) throws {
        for (label, code) in Self.swiftBlocks(in: try Self.text(path)) {
            if label.hasPrefix("<!-- sketch:") { continue }
            guard let file = label.firstMatch(of: #/^<!-- quote (\S+) -->$/#)?.output.1 else {
                Issue.record("\(path): a ```swift block has neither `<!-- quote PATH -->` nor `<!-- sketch: … -->`: \(code.prefix(60))")
                continue
            }
            let source = try Self.text(String(file)).split(separator: "\n", omittingEmptySubsequences: false)
                .map(String.init)
            if let run = Self.missingRun(of: code, in: source) {
                Issue.record("\(path): not in \(file) as quoted:\n\(run.joined(separator: "\n"))")
            }
        }
    }

    @Test(arguments: lessons)
    func everyQuotedDiffHunkIsInWhatDiffPrintsToday(_ path: String) throws {
        let text = try Self.text(path)
        let pattern = try Regex(#"```sh\n(diff -u [^\n]+)\n```\s*```diff\n(.*?)```"#).dotMatchesNewlines()
        for match in text.matches(of: pattern) {
            let command = String(match.output[1].substring ?? "")
            var diff = ChildProcess(command: command.split(separator: " ").map(String.init))
            diff.directory = Self.root
            let real = try diff.run().output.split(separator: "\n", omittingEmptySubsequences: false)
                .filter { !$0.hasPrefix("diff -u ") }
                .map { $0.hasPrefix("--- ") || $0.hasPrefix("+++ ") ? String($0.prefix { $0 != "\t" }) : String($0) }
            if let run = Self.missingRun(of: String(match.output[2].substring ?? ""), in: real) {
                Issue.record("\(path): not in `\(command)` as quoted:\n\(run.joined(separator: "\n"))")
            }
        }
    }

    /// The check can fail: one changed line, a line left out without `…`, or
    /// runs out of order are each caught; `…` lets a quote skip lines.
    @Test func aChangedOrReorderedQuoteIsCaught() {
        let source = ["a", "b", "c", "d"]
        #expect(Self.missingRun(of: "a\nb\n", in: source) == nil)
        #expect(Self.missingRun(of: "a\n…\nd\n", in: source) == nil)
        #expect(Self.missingRun(of: "a\nB\n", in: source) == ["a", "B"])
        #expect(Self.missingRun(of: "a\nc\n", in: source) == ["a", "c"])
        #expect(Self.missingRun(of: "c\n…\na\n", in: source) == ["a"])
        #expect(Self.missingRun(of: "a  \nb\n", in: ["a", "b "]) == nil)
    }
}
