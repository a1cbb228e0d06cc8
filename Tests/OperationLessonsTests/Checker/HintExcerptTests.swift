import Foundation
import LessonChecks
import TableKit
import TerminalKit
import Testing

/// The code of a hint's last level as a terminal shows it: excerpts from
/// other places told apart by "…", lines broken only where Swift reads on.
@Suite struct HintExcerptTests {
    /// Two excerpts in a row are from different places of the fixing code:
    /// were they one after the other there, "…" between them would be untrue.
    @Test(arguments: HintTests.cases)
    func excerptsInARowAreNotAdjacentInTheCode(_ hint: HintTests.Case) throws {
        let fix = try HintTests.sources(hint.fixedIn).values.map(HintTests.normalized)
        for (first, second) in zip(hint.text.hints.code, hint.text.hints.code.dropFirst()) {
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
            let lines = HintText.bug(hint.text, level: 3, lastCheck: nil, number: "1. ", step: "step 7", width: width)
            let start = try #require(lines.firstIndex { $0.hasPrefix("   Code, as") })
            let code = Array(lines[(start + 1)...].prefix { !$0.hasPrefix("   Fixed means") })
            for line in code { #expect(TerminalText.width(of: line) <= width, "too wide: \(line)") }
            // The excerpts, as written, with "…" between: nothing lost or added but the breaks.
            let written = hint.text.hints.code.joined(separator: "\n…\n")
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
