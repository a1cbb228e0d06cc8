import Foundation
import LessonKit

/// A bug the course fixes, defined once: the scenario that shows it, the
/// number that measures it, when that number means "present", the step that
/// fixes it, and what a learner reads about it. The bug matrix
/// (`lessons scoreboard --matrix`), the exercise checker and the tests all
/// read `KnownBug.all`, so "step 5 fixes duplicate downloads" is judged the same
/// way everywhere.
public struct KnownBug: Sendable {
    /// Where the course shows the bug before its fix.
    public enum Origin: Sendable, Equatable {
        /// The step before the one that fixes it.
        case stepBefore
        /// A variant of the fixing step (`--naive-pool`): the fix as it is
        /// first written, with a trap the step then avoids.
        case variant(flag: String)
        /// No step has it: a hasty fix brings it in (the UI set from a download
        /// thread). The tests show it with code of their own.
        case hastyFix
    }

    public let text: BugText
    public let fixedIn: Int
    public internal(set) var origin = Origin.stepBefore
    /// The run that shows it; for a hasty-fix bug, every run a check plays.
    public let scenario: Scenario
    public let measure: Measure
    public internal(set) var presence = Presence.above(0)
    /// What a fix must keep true besides (every row shows its icon at the end):
    /// a change that stops the app from downloading at all has no duplicates either.
    public internal(set) var conditions: [Condition] = []
    /// What this bug's evidence looks like in any run, when that tells it
    /// apart from the others: how the checker says which bug a failure shows.
    public internal(set) var shape: Shape? = nil
    /// What must happen in the run of `scenario` for the number to mean
    /// anything (a file written, a download failed): where it did not, the
    /// bug is not measured, and `Situation.says` tells why. A ✓ with nothing
    /// behind it would be a lie, in a check as in the matrix.
    public internal(set) var situation: Situation? = nil

    public var name: String { text.name }

    /// The image step before the one that fixes it (step 10's is step 7:
    /// steps 8 and 9 are not image lists), where an `.stepBefore` bug shows.
    public var stepBefore: Int? {
        LessonCatalog.imageListSteps.map(\.number).filter { $0 < fixedIn }.max()
    }

    /// Present or gone, by the headline number of one report of `scenario`;
    /// not measured when the report lacks the number or the bug's situation
    /// never arose in it.
    public func verdict(_ report: Report) -> Verdict {
        guard situation?.holds(report) ?? true, let value = measure.value(report) else { return .notMeasured }
        return presence.isPresent(value) ? .present(value) : .gone(value)
    }

    /// Why a report of `scenario` does not measure this bug, in a sentence
    /// that follows "not measured: "; nil when it does.
    public func whyNotMeasured(_ report: Report) -> String? {
        if let situation, !situation.holds(report) { return situation.says(report) }
        if measure.value(report) == nil { return "the \(scenario.name) run gave no \(measure.name)" }
        return nil
    }

    /// Every scenario a check of this bug plays.
    public var scenarios: [Scenario] {
        var seen: Set<String> = []
        return ([scenario] + conditions.map(\.scenario)).filter { seen.insert($0.name).inserted }
    }
}

/// A question asked of a report, and the words that say what the report showed: a bug's `Situation` (what
/// must have happened in its own run for its number to mean anything: "no file was written…" where it did not)
/// and its `Shape` (its evidence, recognisable in a report of any scenario).
public struct ReportTest: Sendable {
    let holds: @Sendable (Report) -> Bool
    let says: @Sendable (Report) -> String

    init(_ holds: @escaping @Sendable (Report) -> Bool, says: @escaping @Sendable (Report) -> String) {
        self.holds = holds
        self.says = says
    }
}

/// What must have happened in a bug's own run for its number to mean anything.
public typealias Situation = ReportTest

/// Something a fix must keep true, on one scenario's report, with the words
/// that say what was measured.
public struct Condition: Sendable {
    public let scenario: Scenario
    let holds: @Sendable (Report) -> Bool
    let says: @Sendable (Report) -> String

    init(
        on scenario: Scenario, _ holds: @escaping @Sendable (Report) -> Bool,
        says: @escaping @Sendable (Report) -> String
    ) {
        self.scenario = scenario
        self.holds = holds
        self.says = says
    }

    /// Every visible row shows its own icon when the scenario ends.
    static func everyRowShowsItsIcon(on scenario: Scenario) -> Condition {
        Condition(on: scenario, { $0.visibleRowsAtEnd > 0 && $0.ownIconsAtEnd == $0.visibleRowsAtEnd }) {
            "\($0.ownIconsAtEnd)/\($0.visibleRowsAtEnd) rows with their own icon at the end"
        }
    }

    /// The app downloaded something: no download, no bug, and no fix either.
    static func downloads(on scenario: Scenario) -> Condition {
        Condition(on: scenario, { $0.requests > 0 }) {
            "\(counted($0.requests, "request")) for \(counted($0.uniqueURLs, "icon"))"
        }
    }
}

/// The evidence of one bug, recognisable in a report of any scenario: a row showing another row's icon while
/// two icons share a file is the disk cache's naming, not the reuse of cells.
public typealias Shape = ReportTest

/// A number read from a report, with its name (a `--json` key, or how it is
/// made of keys) and the words that say it.
public struct Measure: Sendable {
    public let name: String
    /// What one of it is called, and more than one: "duplicate in flight",
    /// "duplicates in flight". Measured in a unit ("ms", "B"), both are it.
    public let unit: String
    public let units: String
    public let value: @Sendable (Report) -> Double?
    /// How a value is written in a sentence; nil: the number and the unit.
    private let format: (@Sendable (Double) -> String)?
    /// How a value is written in a table's cell, for a yes-or-no measure ("freed"); nil: the number.
    private let short: (@Sendable (Double) -> String)?

    public init(
        name: String, unit: String, units: String? = nil, format: (@Sendable (Double) -> String)? = nil,
        short: (@Sendable (Double) -> String)? = nil, value: @escaping @Sendable (Report) -> Double?
    ) {
        self.name = name
        self.unit = unit
        self.units = units ?? (unit == "ms" || unit == "B" || unit.isEmpty ? unit : Self.plural(unit))
        self.format = format
        self.short = short
        self.value = value
    }

    /// A figure of the report, named by its key as `ReportFigure` declares it.
    public init(
        _ figure: ReportFigure, unit: String, units: String? = nil, format: (@Sendable (Double) -> String)? = nil,
        short: (@Sendable (Double) -> String)? = nil
    ) {
        self.init(name: figure.key, unit: unit, units: units, format: format, short: short, value: figure.number)
    }

    /// The value in a sentence: "3 duplicates in flight".
    public func text(_ value: Double) -> String {
        if let format { return format(value) }
        let number = Self.number(value)
        if unit.isEmpty { return number }
        return "\(number) \(value == 1 ? unit : units)"
    }

    /// The value in a table's cell, where the column names what it counts:
    /// the number, or a word for a yes-or-no measure ("freed").
    public func cell(_ value: Double) -> String {
        if let short { return short(value) }
        return Self.number(value) + (unit == "ms" || unit == "B" ? " " + unit : "")
    }

    /// What `cell` shows, in words: "N blank frames", "longest main-queue stall N ms", "freed or kept".
    public var counts: String {
        if let short { return "\(short(1)) or \(short(0))" }
        let sample = text(7)
        return sample.contains("7") ? sample.replacingOccurrences(of: "7", with: "N") : name
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() || value >= 100 ? String(Int(value.rounded())) : String(format: "%.1f", value)
    }

    /// "duplicate in flight" → "duplicates in flight", "blank frame" → "blank
    /// frames": the noun before the words that describe it takes the s.
    static func plural(_ unit: String) -> String {
        var words = unit.split(separator: " ").map(String.init)
        guard !words.isEmpty else { return unit }
        let describing: Set<String> = [
            "in", "with", "without", "after", "at", "on", "started", "delivered", "kept", "blocked",
        ]
        let noun = (words.firstIndex { describing.contains($0) } ?? words.count) - 1
        guard noun >= 0, !words[noun].hasSuffix("s") else { return unit }
        words[noun] += "s"
        return words.joined(separator: " ")
    }

    /// What one report measured, in words ("not measured" when it lacks the number).
    public func says(_ report: Report) -> String {
        value(report).map(text) ?? "\(name) not measured"
    }
}

/// When a measured number means the bug is there.
public enum Presence: Sendable, Equatable, CustomStringConvertible {
    case above(Double)
    case below(Double)

    public func isPresent(_ value: Double) -> Bool {
        switch self {
        case .above(let limit): value > limit
        case .below(let limit): value < limit
        }
    }

    public var description: String {
        switch self {
        case .above(let limit): String(format: "> %g", limit)
        case .below(let limit): String(format: "< %g", limit)
        }
    }
}

public enum Verdict: Sendable, Equatable {
    case present(Double)
    case gone(Double)
    case notMeasured

    public var isPresent: Bool { if case .present = self { true } else { false } }
}

extension IconRequests {
    /// Icons downloaded again after a row had shown what an earlier download
    /// of them brought, with no memory warning between: nothing kept them.
    var downloadedAgainAfterShown: Int {
        icons.filter { icon in
            zip(icon.downloads, icon.downloads.dropFirst()).contains { earlier, again in
                guard earlier.outcome == "ok", earlier.shown, let end = earlier.endMs, again.startMs >= end else {
                    return false
                }
                return !memoryWarningsMs.contains { $0 >= end && $0 <= again.startMs }
            }
        }.count
    }

    /// Icons whose last download failed: not asked for again after it.
    var leftFailed: Int {
        icons.filter { $0.downloads.last?.outcome == "failed" }.count
    }
}

extension Report {
    /// Many more failed downloads than icons, and far fewer cells asked for
    /// than failures: each failed download was asked again by the download
    /// itself, not by a reloaded row asking `cellForRowAt` again.
    var retriedWithoutTheTable: Bool {
        self.failedRequests > 2 * max(1, self.uniqueURLs) && 2 * self.cellRequests <= self.failedRequests
    }
}
