import Foundation
import Testing

/// The harness knows the course only from its manifest (`Sources/LessonKit/Steps/course.json`): no module that
/// plays, checks or shows the steps names a step's target, compares a number with a step's, looks a step up by a
/// literal, lists steps by hand, or says "step 5" in its own words. Adding a step is then its folder, one manifest
/// entry, its text and its tests (docs/architecture.md, "How to add a step").
@Suite struct HarnessNamesNoStepTests {
    static let harness = [
        "LessonKit", "LessonChecks", "TableKit", "SlowNetwork", "LessonSupport", "TerminalKit", "lessons", "CourseSite",
    ]

    /// What naming a step looks like in code, each with what it catches.
    static let rules: [(name: String, pattern: String)] = [
        ("a step's or an exercise's target", #"Lesson[0-9]{2}[A-Z]|Exercise[0-9]{2}Start"#),
        (
            "a step number compared",
            #"\b(number|step|exercise|before|after|fixedIn|raceFixedIn|current|next)\s*(==|!=|<=|>=|<|>)\s*[1-9]"#
        ),
        ("a step looked up by its number", #"\b(entry|exercise|comparison|of)\([0-9]+\)|\b(step|exercise|fixedIn|before|after): [0-9]+"#),
        ("a step named in words", #"\b[Ss]teps? [0-9]+\b|\b[Ee]xercises? [0-9]+\b"#),
        ("a list or range of steps", #"\[([0-9]+, )+[0-9]+\]|\(\s*"[^"]*",\s*[0-9]+\.\.\.[0-9]+\)"#),
        ("a step's number as the harness's constant", #"(FixedIn|Step|Exercise) = [0-9]+\b"#),
    ]

    /// The places where a step number is data, each with why it stays. Nothing else may match.
    static let allowed: [(file: String, contains: String, why: String)] = [
        (
            "LessonChecks/Bugs/KnownBugs.swift", "fixedIn: ",
            "the bug table says which step fixes each bug; its rows move into the manifest with its owner's rewrite"
        ),
        ("LessonChecks/Checks/DependencyChecks.swift", "seeds: [UInt64] = [", "seeds, not steps"),
        ("LessonKit/Reports/TimelineSVG.swift", "step: 100", "a time axis's tick, not a course step"),
        ("LessonKit/Terminal/ComparisonScreen.swift", "[3, 2, 1]", "rows per side, not steps"),
    ]

    /// A rule's regex, whose `\b` is a boundary between a word character and another (Unicode's word boundaries
    /// join `entry.number` into one word).
    static func regex(_ pattern: String) throws -> Regex<AnyRegexOutput> {
        try Regex(pattern).wordBoundaryKind(.simple)
    }

    /// Each line of the harness's Swift files that is code, not a comment, by file.
    static func codeLines() throws -> [(file: String, number: Int, line: String)] {
        let sources = Rig.packageRoot.appendingPathComponent("Sources")
        var lines: [(String, Int, String)] = []
        for module in harness {
            let folder = sources.appendingPathComponent(module)
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
            #expect(!files.isEmpty, "no Swift files in Sources/\(module)")
            for url in files {
                let name = String(url.path.dropFirst(sources.path.count + 1))
                let text = try String(contentsOf: url, encoding: .utf8)
                for (index, line) in text.components(separatedBy: "\n").enumerated()
                where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                    lines.append((name, index + 1, line))
                }
            }
        }
        return lines
    }

    @Test func theHarnessNamesNoStep() throws {
        let lines = try Self.codeLines()
        #expect(lines.count > 10_000, "only \(lines.count) lines read")
        var found: [String] = []
        // Every rule names a number: the patterns, slow to try, are tried only on lines with a digit.
        let withDigits = lines.filter { $0.line.utf8.contains { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }
        for rule in Self.rules {
            let pattern = try Self.regex(rule.pattern)
            for (file, number, line) in withDigits where line.contains(pattern) {
                if Self.allowed.contains(where: { file == $0.file && line.contains($0.contains) }) { continue }
                found.append("Sources/\(file):\(number): \(rule.name): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(found.isEmpty, "the harness names steps; read them from the manifest:\n\(found.joined(separator: "\n"))")
    }

    /// The rules catch what they are written for: each pattern matches a line that names a step the way the
    /// harness once did, and none of the allowed lines' neighbours in kind.
    @Test(arguments: [
        "if let step10 = pages.first(where: { $0.entry.target == \"Lesson10WebImage\" }) {",
        "if entry.number == 10 { intro.append(\"…\") }",
        "throw UsageError(\"no exercise started yet: swift run lessons exercise 2\")",
        "(\"The list and its icons\", 1...4),",
        "public static let raceFixedIn = 5",
        "let scenario = ImageListChecks.scenarios(exercise: 11)[0]",
        "static let steps = [2, 3, 4, 5, 6, 7, 10, 11]",
        "return \"crashed: steps 3 and 4 write their cache from download threads\"",
    ])
    func aRuleCatchesEachWayOfNamingAStep(line: String) throws {
        let patterns = try Self.rules.map { try Self.regex($0.pattern) }
        let caught = patterns.contains { line.contains($0) }
        #expect(caught, "\(line)")
    }
}
