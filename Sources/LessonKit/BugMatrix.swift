import Foundation

/// A bug the course fixes, defined once, as data: the scenario that shows it,
/// the number that measures it, and when that number means "present". The
/// matrix (`lessons scoreboard --matrix`), docs/performance.md and the tests
/// all read these definitions, so a claim like "step 5 fixes duplicate
/// downloads" is checked the same way everywhere.
public struct KnownBug: Sendable {
    public let name: String
    /// The named scenario (`Scenario.named`) that shows the bug.
    public let scenario: String
    public let measure: Measure
    public let presence: Presence
    /// The step whose change makes the bug go away.
    public let fixedIn: Int

    public init(name: String, scenario: String, measure: Measure, presence: Presence, fixedIn: Int) {
        self.name = name
        self.scenario = scenario
        self.measure = measure
        self.presence = presence
        self.fixedIn = fixedIn
    }

    /// Present or gone, with the number; `notMeasured` when the report lacks
    /// the measure (a step-specific key the step does not report).
    public func verdict(_ report: Report) -> Verdict {
        guard let value = measure.value(report) else { return .notMeasured }
        return presence.isPresent(value) ? .present(value) : .gone(value)
    }
}

/// A number read from a report, with its name and unit.
public struct Measure: Sendable {
    public let name: String
    public let unit: String
    public let value: @Sendable (Report) -> Double?
    /// How a value is written in a cell; nil: the number and the unit.
    private let format: (@Sendable (Double) -> String)?

    public init(
        name: String, unit: String, format: (@Sendable (Double) -> String)? = nil,
        value: @escaping @Sendable (Report) -> Double?
    ) {
        self.name = name
        self.unit = unit
        self.format = format
        self.value = value
    }

    public func text(_ value: Double) -> String {
        if let format { return format(value) }
        let number =
            value == value.rounded() || value >= 100 ? String(Int(value.rounded())) : String(format: "%.1f", value)
        // A counted noun reads singular for exactly one ("1 request"); "ms" is not a plural.
        let counted = value == 1 && unit.hasSuffix("s") && unit != "ms" ? String(unit.dropLast()) : unit
        return unit.isEmpty ? number : "\(number) \(counted)"
    }

    /// A number only some steps report (`Report.measures`), by its key.
    public static func step(_ key: String, unit: String) -> Measure {
        Measure(name: "measures.\(key)", unit: unit) { $0.measures[key] }
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
        case .above(let limit): "> \(limit.formatted)"
        case .below(let limit): "< \(limit.formatted)"
        }
    }
}

public enum Verdict: Sendable, Equatable {
    case present(Double)
    case gone(Double)
    case notMeasured

    public var isPresent: Bool { if case .present = self { true } else { false } }
}

extension Measure {
    public static let maxMainStall = Measure(name: "maxMainStallMs", unit: "ms") { $0.maxMainStallMs }
    /// The longest stall in downloads' worth of time: how many fetches the main
    /// queue sat through, whatever the latency.
    public static let stallInLatencies = Measure(
        name: "maxMainStallMs ÷ latency", unit: "", format: { String(format: "%.1f latencies", $0) },
        value: { $0.latencyMs > 0 ? $0.maxMainStallMs / $0.latencyMs : nil })
    public static let blankFrames = Measure(name: "blankFrames", unit: "frames") { Double($0.blankFrames) }
    public static let redownloads = Measure(name: "requests − uniqueURLs", unit: "requests") {
        Double($0.requests - $0.uniqueURLs)
    }
    public static let wrongImageFrames = Measure(name: "wrongImageFrames", unit: "frames") {
        Double($0.wrongImageFrames)
    }
    public static let liveImageBytes = Measure(name: "liveImageBytes", unit: "B") { $0.liveImageBytes.map(Double.init) }
    public static let duplicateRequests = Measure(name: "duplicateRequests", unit: "requests") {
        Double($0.duplicateRequests)
    }
    public static let requestsPerIcon = Measure(name: "requests ÷ uniqueURLs", unit: "per icon") {
        $0.uniqueURLs == 0 ? 0 : Double($0.requests) / Double($0.uniqueURLs)
    }
    public static let controllerFreed = Measure(
        name: "controllerFreed", unit: "", format: { $0 == 1 ? "freed" : "kept" }, value: { $0.controllerFreed ? 1 : 0 }
    )
    public static let requestsAfterRelaunch = Measure(name: "requestsAfterRelaunch", unit: "requests") {
        $0.requestsAfterRelaunch.map(Double.init)
    }
    public static let requestsStartedWhileScrolling = Measure(name: "requestsStartedWhileScrolling", unit: "requests") {
        Double($0.requestsStartedWhileScrolling)
    }
    public static let rowsWithoutIconAtEnd = Measure(name: "visibleRowsAtEnd − ownIconsAtEnd", unit: "rows") {
        Double($0.visibleRowsAtEnd - $0.ownIconsAtEnd)
    }
    public static let peakBlockedThreads = Measure(name: "peakBlockedThreads", unit: "threads") {
        Double($0.peakBlockedThreads)
    }
}

extension KnownBug {
    /// Every bug the image-list steps fix, in the order the course meets them.
    public static let all: [KnownBug] = [
        // At least one whole download's time.
        KnownBug(
            name: "main queue blocked by downloads", scenario: "standard", measure: .stallInLatencies,
            presence: .above(1), fixedIn: 2),
        KnownBug(
            name: "blank cells while loading", scenario: "standard", measure: .blankFrames, presence: .above(0),
            fixedIn: 2),
        KnownBug(
            name: "icons downloaded again", scenario: "standard", measure: .redownloads, presence: .above(0),
            fixedIn: 3),
        KnownBug(
            name: "another row's icon in a reused cell", scenario: "fast-scroll-slow-rows", measure: .wrongImageFrames,
            presence: .above(0), fixedIn: 3),
        KnownBug(
            name: "memory warning frees nothing", scenario: "standard", measure: .liveImageBytes, presence: .above(0),
            fixedIn: 4),
        KnownBug(
            name: "offline: endless request loop", scenario: "offline", measure: .requestsPerIcon,
            presence: .above(2), fixedIn: 5),
        KnownBug(
            name: "duplicate downloads while in flight", scenario: "scroll-back-while-loading",
            measure: .duplicateRequests, presence: .above(0), fixedIn: 5),
        KnownBug(
            name: "controller never freed", scenario: "leave-while-loading", measure: .controllerFreed,
            presence: .below(1), fixedIn: 5),
        KnownBug(
            name: "relaunch downloads everything again", scenario: "relaunch", measure: .requestsAfterRelaunch,
            presence: .above(0), fixedIn: 6),
        KnownBug(
            name: "offline relaunch shows no icons", scenario: "offline-relaunch", measure: .rowsWithoutIconAtEnd,
            presence: .above(0), fixedIn: 6),
        // Steps 6 and 7 count these themselves (`measures`); earlier steps show n/a.
        KnownBug(
            name: "cancelled downloads still deliver", scenario: "memory-warning-mid-download",
            measure: .step("staleDeliveries", unit: "icons"), presence: .above(0), fixedIn: 7),
        KnownBug(
            name: "downloads compete with scrolling", scenario: "standard", measure: .requestsStartedWhileScrolling,
            presence: .above(0), fixedIn: 7),
        // Step 10's library: a fetch that waits on no thread, and one download shared by every row that shows it.
        KnownBug(
            name: "a thread blocked per download in flight", scenario: "standard", measure: .peakBlockedThreads,
            presence: .above(0), fixedIn: 10),
        KnownBug(
            name: "a second row on a shared icon stays empty", scenario: "shared-icon",
            measure: .rowsWithoutIconAtEnd, presence: .above(0), fixedIn: 10),
    ]
}

/// Bugs × steps, each cell measured.
public enum BugMatrix {
    /// One run the matrix needs: a step on a scenario.
    public struct Run: Hashable, Sendable {
        public let lesson: Int
        public let scenario: String
    }

    /// The runs that measure `bugs` on `steps`, each once, however many bugs share it.
    public static func runs(bugs: [KnownBug], steps: [Int]) -> [Run] {
        var seen = Set<Run>()
        var runs: [Run] = []
        for bug in bugs {
            for step in steps {
                let run = Run(lesson: step, scenario: bug.scenario)
                if seen.insert(run).inserted { runs.append(run) }
            }
        }
        return runs
    }

    public static func run(for bug: KnownBug, step: Int) -> Run {
        Run(lesson: step, scenario: bug.scenario)
    }

    /// The matrix as text or Markdown: a row per bug, a column per step. A cell
    /// is ✗ (present) or ✓ (gone) with the number; the step that fixes the bug
    /// is marked; a run that crashed says so.
    public static func render(
        bugs: [KnownBug], steps: [LessonEntry], markdown: Bool,
        outcome: (Run) -> Scoreboard.Outcome?
    ) -> String {
        // The terminal table leaves the measure's name out (it is in --markdown and --json): it is wide enough.
        let header = ["bug", "scenario"] + (markdown ? ["measure"] : []) + steps.map { "step \($0.id)" }
        var rows: [[String]] = []
        for bug in bugs {
            var cells = [bug.name, bug.scenario]
            if markdown { cells.append(bug.measure.name) }
            for step in steps {
                let mark = step.number == bug.fixedIn ? (markdown ? " ←" : "←") : ""
                switch outcome(run(for: bug, step: step.number)) {
                case .measured(let report)?:
                    cells.append(cell(bug.verdict(report), measure: bug.measure, markdown: markdown) + mark)
                case .failed(let why)?:
                    cells.append((why.hasPrefix("crashed") ? "crash" : "error") + mark)
                case nil:
                    cells.append("—")
                }
            }
            rows.append(cells)
        }
        if markdown {
            var lines = [
                "| " + header.joined(separator: " | ") + " |",
                "|---|---|---|" + String(repeating: "---|", count: steps.count),
            ]
            lines += rows.map { "| " + $0.joined(separator: " | ") + " |" }
            return lines.joined(separator: "\n")
        }
        let table = [header] + rows
        let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        return table.map { cells in
            cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }.joined(separator: "\n")
    }

    private static func cell(_ verdict: Verdict, measure: Measure, markdown: Bool) -> String {
        switch verdict {
        case .present(let value): markdown ? "**✗ \(measure.text(value))**" : "✗ \(measure.text(value))"
        case .gone(let value): "✓ \(measure.text(value))"
        case .notMeasured: "n/a"
        }
    }
}
