import Foundation
import LessonKit
import Testing

@testable import LessonChecks

/// What a verdict counts and says once: a row no run measured is no bug seen, and a check says its summary one
/// time, at its end.
@Suite struct VerdictSummaryTests {
    static let exercise6 = ExerciseCatalog.exercise(6)!

    /// Exercise 6's verdict as a learner met it: two bugs measured still there, one row not measured, the rest ✓.
    static var twoSeenOneUnmeasured: [CheckResult] {
        let bugs = exercise6.bugs
        return bugs.enumerated().map { index, bug in
            switch index {
            case 0, 1: bug.result(passed: false, measured: "measured")
            case 2:
                CheckResult(
                    bug: bug.name, passed: false, measured: "not measured: why", expected: bug.expected, hint: "h",
                    isSafeguard: bug.isSafeguard, notMeasured: true)
            default: bug.result(passed: true, measured: "measured")
            }
        }
    }

    /// "3 bugs still there" counted a row that was not measured among the bugs seen.
    @Test func aRowNotMeasuredIsNoBugStillThere() throws {
        let results = Self.twoSeenOneUnmeasured
        let unmeasured = results[2].title
        #expect(results.stillThere == "2 bugs still there; 1 not measured: \(unmeasured)")
        let onlyUnmeasured = results.map { $0.wasMeasured ? $0.bug == results[2].bug ? $0 : Self.passed($0) : $0 }
        #expect(onlyUnmeasured.stillThere == "no bug seen still there; 1 not measured: \(unmeasured)")
        #expect([results[0]].stillThere == "1 bug still there")
    }

    static func passed(_ result: CheckResult) -> CheckResult {
        CheckResult(
            bug: result.bug, passed: true, measured: result.measured, expected: result.expected, hint: result.hint,
            isSafeguard: result.isSafeguard)
    }

    /// `lessons hint 6` after that check: the count as the verdict had it.
    @Test func theHintCountsWhatWasMeasured() async throws {
        let root = try ExerciseCommandTests.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let results = Self.twoSeenOneUnmeasured
        try ExerciseCommandTests.keepLastCheck(results, exercise: 6, in: root)
        let hint = try await ExerciseCommandTests.lessons(["hint", "6"], root: root)
        #expect(hint.status == 0, "\(hint.standardError)")
        #expect(
            hint.standardOutput.contains("): 2 bugs still there; 1 not measured: \(results[2].title).\n"),
            "\(hint.standardOutput)")
        #expect(!hint.standardOutput.contains("3 bugs still there"))
    }

    /// The workbench's verdict, when `lessons check` judges more with builds of its own (exercises 5 to 7, 10,
    /// 11): its rows and what is still to check, never a summary the command says again at its end (exercises 6
    /// and 7 printed theirs twice, before the race run and after it). Played by hand, it says its own.
    @Test func theWorkbenchLeavesTheSummaryToTheCheck() throws {
        let results = Self.twoSeenOneUnmeasured
        let forTheCheck = WorkbenchMain.said(results, Self.exercise6, forTheCheckCommand: true)
        #expect(!forTheCheck.contains("Exercise 6"), "\(forTheCheck)")
        #expect(forTheCheck.hasSuffix("\n\nStill to check: the data race with Thread Sanitizer…"))
        #expect(forTheCheck.hasPrefix(results.renderedBugs))
        let byHand = WorkbenchMain.said(results, Self.exercise6, forTheCheckCommand: false)
        #expect(byHand.contains("Exercise 6 not solved yet: "), "\(byHand)")
        // An exercise judged by the workbench alone says its summary there.
        let eight = try #require(ExerciseCatalog.exercise(8))
        let judged = CheckEvidence.unmeasured(eight, because: "why", hint: "hint")
        #expect(WorkbenchMain.said(judged, eight, forTheCheckCommand: true).contains("Exercise 8 not solved yet: "))
    }
}
