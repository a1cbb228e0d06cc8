import Foundation
import LessonChecks
import Testing

/// `lessons solution`: paged on a terminal as git pages, and "your code
/// against the step" without the changes that touch comments alone.
@Suite struct SolutionTests {
    /// The sandbox's workbench holding exercise 3 as step 3 solves it, its comments reworded and a blank line added.
    static func solvedWithOtherComments() async throws -> URL {
        let root = try ExerciseCommandTests.sandbox()
        let started = try await ExerciseCommandTests.lessons(["exercise", "3", "--yes"], root: root)
        try #require(started.status == 0, "\(started.standardError)")
        let name = "AppsViewController.swift"
        let step = try String(
            contentsOf: root.appendingPathComponent("Sources/Lesson03ModelCache/\(name)"), encoding: .utf8)
        let reworded = step.replacingOccurrences(of: "// ", with: "// (in my words) ") + "\n"
        #expect(reworded != step + "\n")
        try reworded.write(
            to: root.appendingPathComponent(WorkbenchLayout.code + name), atomically: true, encoding: .utf8)
        return root
    }

    @Test func aChangeOfCommentsAloneIsNoDifference() async throws {
        let root = try await Self.solvedWithOtherComments()
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await ExerciseCommandTests.lessons(["solution", "3", "--force"], root: root)
        #expect(run.status == 0, "\(run.standardError)")
        let yours = try #require(run.standardOutput.components(separatedBy: "Your workbench against the step").last)
        #expect(!yours.contains(WorkbenchLayout.code + "AppsViewController.swift"), "\(yours)")
        // AppInfo.swift is still step 2's: a difference in code, shown.
        #expect(yours.contains("+++ Sources/Lesson03ModelCache/AppInfo.swift"))
        #expect(!run.standardOutput.contains("paged:"), "off a terminal, never paged")
    }

    @Test(.onATerminal) func onATerminalTheLearnersPagerShowsItAndAnEmptyPagerNone() async throws {
        let root = try await Self.solvedWithOtherComments()
        defer { try? FileManager.default.removeItem(at: root) }
        let arguments = ["solution", "3", "--force", "--root", root.path]
        let paged = try await PseudoTerminal.run(
            "lessons", arguments: arguments, environment: ["PAGER": "sed 's/^/paged: /'"], size: (24, 80))
        #expect(paged.status == 0)
        let lines = paged.output.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count > 24)
        #expect(lines.allSatisfy { $0.hasPrefix("paged: ") }, "every line through the pager")
        #expect(lines.first == "paged: Step 3's own fix: from Sources/Lesson02AsyncPlaceholder to")

        let unpaged = try await PseudoTerminal.run(
            "lessons", arguments: arguments, environment: ["PAGER": ""], size: (24, 80))
        #expect(unpaged.status == 0)
        #expect(unpaged.output.hasPrefix("Step 3's own fix"))
        // Taller than the text: it fits, so no pager.
        let tall = try await PseudoTerminal.run(
            "lessons", arguments: arguments, environment: ["PAGER": "sed 's/^/paged: /'"], size: (500, 80))
        #expect(tall.status == 0 && !tall.output.contains("paged:"))
    }
}
