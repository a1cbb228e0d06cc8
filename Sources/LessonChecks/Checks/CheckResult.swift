import Foundation
import LessonKit
import TableKit
import TerminalKit

/// What a check found about one bug of an exercise: gone or not, the number
/// that says so, the number it should be, and a one-line hint.
///
/// Codable: `lessons check` keeps the last verdict (`Workbench --check N
/// --verdict FILE`), which `lessons hint` and `lessons watch` read.
public struct CheckResult: Sendable, Equatable, Codable {
    public let bug: String
    public let passed: Bool
    /// What the run measured, in words and numbers ("412 ms longest stall").
    public let measured: String
    /// What a fixed step measures ("under 100 ms").
    public let expected: String
    /// The next thing to try when it failed.
    public let hint: String
    /// Not a bug of the starting code, but one a hasty fix brings in.
    public let isSafeguard: Bool
    /// When it failed: which bug the evidence points at, if that is not this
    /// one ("another bug's shape: …"), or that none fits; the hint then follows it.
    public let diagnosis: String?
    /// Set when no run gave the evidence (every one crashed, or ended without
    /// a report): neither fixed nor broken, and never passed. Nil in older verdicts.
    public let notMeasured: Bool?
    /// What was measured when it is not the shape the bug's name says (a race
    /// on a record's `state`, not on a cache): the row's title in its place.
    /// The name stays the key that the counts and the hints go by.
    public let shape: String?
    /// A fix to keep that failed at lines the exercise's starting code has as they are: there from the start,
    /// not broken on the way. Nil in older verdicts.
    public let fromTheStart: Bool?

    public init(
        bug: String, passed: Bool, measured: String, expected: String, hint: String, isSafeguard: Bool,
        diagnosis: String? = nil, notMeasured: Bool = false, shape: String? = nil, fromTheStart: Bool = false
    ) {
        self.bug = bug
        self.passed = passed
        self.measured = measured
        self.expected = expected
        self.hint = hint
        self.isSafeguard = isSafeguard
        self.diagnosis = diagnosis
        self.notMeasured = notMeasured ? true : nil
        self.shape = shape
        self.fromTheStart = fromTheStart ? true : nil
    }

    /// What the row is called: the measured shape, else the bug's name.
    public var title: String { shape ?? bug }

    /// Judged on evidence (see `notMeasured`).
    public var wasMeasured: Bool { notMeasured != true }

    /// The same verdict on a bug an earlier step fixed: one to keep fixed.
    public var asSafeguard: CheckResult {
        CheckResult(
            bug: bug, passed: passed, measured: measured, expected: expected, hint: hint, isSafeguard: true,
            diagnosis: diagnosis, notMeasured: !wasMeasured, shape: shape, fromTheStart: fromTheStart == true)
    }

    /// Failed where the starting code fails (`fromTheStart`).
    public var failedAsStarted: Bool { !passed && wasMeasured && fromTheStart == true }
}

extension [CheckResult] {
    /// Every bug gone (and at least one was checked).
    public var allPassed: Bool { !isEmpty && allSatisfy(\.passed) }

    /// The verdict a learner reads: one block per bug, ✓ or ✗, measured vs
    /// expected, and the hint where it failed; then the summary.
    public func rendered(exercise: Int, stillToCheck: String? = nil) -> String {
        [renderedBugs, "", summary(exercise: exercise, stillToCheck: stillToCheck)].joined(separator: "\n")
    }

    /// The verdict's last line: solved or not, how many bugs are fixed, and
    /// what broke on the way or could not be measured.
    public func summary(exercise: Int, stillToCheck: String? = nil) -> String {
        let fixed = fixedCount(of: ExerciseCatalog.exercise(exercise)?.bugs)
        let broken = filter { $0.isSafeguard && !$0.passed && $0.wasMeasured && !$0.failedAsStarted }.map(\.title)
        let asStarted = filter(\.failedAsStarted).map(\.title)
        let unmeasured = filter { !$0.wasMeasured }.map(\.title)
        if allPassed, let stillToCheck {
            return "Exercise \(exercise): \(fixed), nothing broken on the way; still to check: \(stillToCheck)."
        }
        if allPassed { return "Exercise \(exercise) solved: \(fixed), nothing broken on the way." }
        return "Exercise \(exercise) not solved yet: \(fixed)"
            + (broken.isEmpty ? "" : "; broken on the way: \(broken.joined(separator: ", "))")
            + (asStarted.isEmpty ? "" : "; there from the starting code: \(asStarted.joined(separator: ", "))")
            + (unmeasured.isEmpty ? "" : "; not measured: \(unmeasured.joined(separator: ", "))")
            + ".\nMore help: swift run lessons hint \(exercise)"
    }

    /// What the rows that did not pass say, counted apart: "2 bugs still there; 1 not measured: …". A row no run
    /// measured is no bug seen, so it is never counted among those still there.
    public var stillThere: String {
        let failed = filter { !$0.passed }
        let seen = failed.filter(\.wasMeasured).count
        let unmeasured = failed.filter { !$0.wasMeasured }.map(\.title)
        let there = seen == 0 && !unmeasured.isEmpty ? "no bug seen still there" : "\(counted(seen, "bug")) still there"
        guard !unmeasured.isEmpty else { return there }
        return there + "; \(unmeasured.count) not measured: " + unmeasured.joined(separator: "; ")
    }

    /// "2 of 4 bugs fixed", counted on `table` (the exercise's bugs, as its
    /// task lists them) so that the task, the check, the watch and the
    /// exercise list agree: a bug of it with no result yet (the data race,
    /// before its Thread Sanitizer run) is not fixed. Nil: these results' own bugs.
    public func fixedCount(of table: [BugText]? = nil) -> String {
        let bugs = table.map { $0.filter { !$0.isSafeguard }.map(\.name) } ?? filter { !$0.isSafeguard }.map(\.bug)
        let fixed = bugs.filter { name in contains { $0.bug == name && $0.passed } }.count
        return "\(fixed) of \(bugs.count) \(bugs.count == 1 ? "bug" : "bugs") fixed"
    }

    /// One block per bug: ✓ or ✗ and its name, measured, expected, and the hint when it failed.
    public var renderedBugs: String {
        var lines: [String] = []
        for result in self {
            let mark =
                switch (result.passed, result.isSafeguard) {
                case _ where !result.wasMeasured: "? unchecked"
                case _ where result.failedAsStarted: "✗ as given "
                case (true, false): "✓ fixed    "
                case (false, false): "✗ not fixed"
                case (true, true): "✓ kept     "
                case (false, true): "✗ broken   "
                }
            // What a run measured may quote what the learner's program wrote: shown as text only.
            lines.append("\(mark) \(TerminalText.printable(result.title))")
            lines.append("    measured: \(TerminalText.printable(result.measured))")
            lines.append("    expected: \(result.expected)")
            if !result.passed, let diagnosis = result.diagnosis {
                lines.append("    seen:     \(TerminalText.printable(diagnosis))")
            }
            if !result.passed { lines.append("    hint:     \(result.hint)") }
        }
        return lines.joined(separator: "\n")
    }
}

extension Exercise {
    /// The race check's verdict as this exercise lists it: a bug to fix in
    /// the exercise whose step fixes it, an earlier fix to keep after that.
    public func listed(race verdict: CheckResult) -> CheckResult {
        raceIsAFixToKeep ? verdict.asSafeguard : verdict
    }

    /// The race is a fix an earlier step made (`listed(race:)`).
    public var raceIsAFixToKeep: Bool { number > ImageListChecks.raceFixedIn }

    /// `lessons check`'s whole verdict: the compiler's first (exercise 11's own
    /// bug), the workbench's, then the race's; one result per bug of `bugs`.
    public func verdict(workbench: [CheckResult], swift6: CheckResult?, race: CheckResult?) -> [CheckResult] {
        (swift6.map { [$0] } ?? []) + workbench + (race.map { [listed(race: $0)] } ?? [])
    }
}

/// One bug as the learner reads about it: its name, what a fixed step
/// measures, the why (in the lesson text's words), and the hints `lessons
/// hint` gives a level at a time. A failed check prints the first level.
public struct BugText: Sendable {
    public let name: String
    public let expected: String
    public let why: String
    public let hints: Hints
    /// Not a bug of the starting code: one an earlier step fixed, or one a
    /// hasty fix brings in (the UI set from a download thread). Checked, and
    /// listed as "keep".
    public internal(set) var isSafeguard = false

    /// What a failed check says to try: the first hint, a question and where to look.
    public var hint: String { hints.nudge }

    /// The verdict, its hint said of `code` (the learner's files) when given.
    public func result(
        passed: Bool, measured: String, isSafeguard: Bool? = nil, code: LearnerCode? = nil
    ) -> CheckResult {
        CheckResult(
            bug: name, passed: passed, measured: measured, expected: expected, hint: hints.nudge(in: code),
            isSafeguard: isSafeguard ?? self.isSafeguard)
    }

    /// The same text, as a bug to fix or as one to keep fixed.
    public func safeguard(_ isSafeguard: Bool) -> BugText {
        var text = self
        text.isSafeguard = isSafeguard
        return text
    }
}

/// A run that produced no report: the process crashed (step 4's racy
/// dictionary can), or the run could not be made.
public struct RunFailure: Error, Sendable, CustomStringConvertible {
    public let description: String
    /// For a crash: what its backtrace said, for the verdicts it leaves unmeasured.
    public let crash: CrashDiagnosis?
    /// A run that ended early or was stopped: it measured nothing, so its verdicts are not measured.
    public let unmeasured: Bool

    public init(_ description: String, crash: CrashDiagnosis? = nil, unmeasured: Bool = false) {
        self.description = description
        self.crash = crash
        self.unmeasured = unmeasured
    }
}
