import Foundation
import LessonKit
import Testing

/// Each "Try it" break is written in its lesson as the change it makes (an
/// HTML comment `<!-- break --filter F FILE` with `-` lines replaced by `+`
/// lines, `@@` between changes), followed by the list of tests that fail,
/// which `swift scripts/try-it.swift run` rewrites from a real run. These
/// tests keep the breaks and the sources in step: a break whose lines are no
/// longer in its file, or that lost its list, fails here, before a reader
/// meets it. (Running the breaks is the script's job: it rebuilds the package
/// once per break.)
@Suite struct TryItTests {
    static let root = Rig.packageRoot
    static var lessons: [String] { LessonCatalog.all.map(\.text) }

    struct Break {
        var file: String
        var changes: [(old: String, new: String)]
        var after: Substring
    }

    static func breaks(in text: String) throws -> [Break] {
        let pattern = try Regex(#"^( *)<!-- break --filter \S+ (\S+)\n(.*?)\n *-->\n"#).dotMatchesNewlines()
            .anchorsMatchLineEndings()
        return text.matches(of: pattern).map { match in
            let indent = match.output[1].substring?.count ?? 0
            var changes: [(old: String, new: String)] = []
            var old = "", new = ""
            for raw in (match.output[3].substring ?? "").split(separator: "\n", omittingEmptySubsequences: false) {
                let line = raw.dropFirst(min(indent, raw.prefix { $0 == " " }.count))
                if line == "@@" {
                    changes.append((old, new))
                    (old, new) = ("", "")
                } else if line.hasPrefix("-") {
                    old += line.dropFirst() + "\n"
                } else if line.hasPrefix("+") {
                    new += line.dropFirst() + "\n"
                }
            }
            changes.append((old, new))
            return Break(
                file: String(match.output[2].substring ?? ""), changes: changes,
                after: text[match.range.upperBound...])
        }
    }

    @Test(arguments: lessons)
    func everyBreakStillAppliesToItsFileAndListsWhatFails(_ path: String) throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
        for (index, item) in try Self.breaks(in: text).enumerated() {
            var source = try String(contentsOf: Self.root.appendingPathComponent(item.file), encoding: .utf8)
            for change in item.changes {
                let count = source.components(separatedBy: change.old).count - 1
                #expect(count == 1, "\(path), break \(index + 1): its lines are in \(item.file) \(count) times")
                source = source.replacingOccurrences(of: change.old, with: change.new)
            }
            let list = item.after.drop { $0 == " " }
            #expect(
                ["No test fails.", "One test fails: ", "These "].contains { list.hasPrefix($0) },
                "\(path), break \(index + 1): no list of failing tests after it (swift scripts/try-it.swift run)")
        }
    }

    /// The check can fail: a break whose line is not in its file is caught.
    @Test func aBreakWhoseLinesAreGoneIsCaught() throws {
        let text = "1. Break it.\n   <!-- break --filter X Package.swift\n   -no such line\n   -->\n   No test fails.\n"
        let item = try #require(try Self.breaks(in: text).first)
        let source = try String(contentsOf: Self.root.appendingPathComponent(item.file), encoding: .utf8)
        #expect(item.changes.map(\.old) == ["no such line\n"])
        #expect(!source.contains(item.changes[0].old))
        #expect(item.after.drop { $0 == " " }.hasPrefix("No test fails."))
    }
}
