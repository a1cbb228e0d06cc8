import Foundation
import LessonChecks
import LessonKit

/// `lessons scoreboard`: every image-list step on the same scenario and seed,
/// each in its own process, in one table; `--matrix`: the named bugs × steps.
enum ScoreboardCommand: LessonsCommand {
    static let name = "scoreboard"
    static let abstract = "every image-list step on one scenario, in one table (--matrix: bugs × steps)"
    struct Options {
        var scenario = "standard"
        var seed: UInt64 = 1
        var markdown = false
        var json = false
        var jobs = 1
        var matrix = false
    }

    static var flags: FlagTable<Options> {
        FlagTable(
            Options(),
            flags: [
                .value(
                    "--scenario", .scenario, \.scenario,
                    help: "the script every step plays (default: standard): "
                        + Scenario.all.map(\.name).joined(separator: ", ")),
                .value("--seed", .seed, \.seed, help: "the seed for jitter and faults (default: 1)"),
                .switch("--markdown", \.markdown, help: "print a Markdown table"),
                .switch("--json", \.json, help: "print every step's full report as JSON"),
                .value(
                    "--jobs", .wholeNumber("N", in: 1...8), \.jobs,
                    help: "run N steps at once (default: 1; the figures are the same either way)"),
                .switch(
                    "--matrix", \.matrix,
                    help: "the bug matrix: each named bug, on the scenario that shows it, for every step"),
            ],
            exclusive: [["--markdown", "--json"]])
    }

    static var about: String {
        """
        Each step runs as its own executable (built beside lessons: run `swift build` first), with --clear-cache \
        and a Caches folder of its own. A run that crashes (a step's racy dictionary, before step \
        \(ImageListChecks.raceFixedIn)) is counted and run again, \
        up to five runs. On a terminal narrower than a table, the table is cut into parts that fit, one under the \
        other.
        """
    }

    static func run(_ options: Options) -> Int32 {
        let steps = LessonCatalog.imageListSteps
        guard let children = stepProcesses(for: steps, command: name) else { return 1 }
        return options.matrix ? matrix(options, steps: steps, children: children) : table(options, steps, children)
    }

    private static func table(_ options: Options, _ steps: [LessonEntry], _ children: StepProcess) -> Int32 {
        let progress = ProgressLine(total: steps.count)
        let rows = runConcurrently(count: steps.count, jobs: options.jobs) { index in
            let entry = steps[index]
            progress.started("step \(entry.id) \(entry.title) · \(options.scenario)")
            let (outcome, crashes) = children.runRetryingCrashes(
                entry, arguments: flags(options.scenario, options.seed))
            progress.finished()
            return Scoreboard.Row(lesson: entry.id, title: entry.title, outcome: outcome, crashedRuns: crashes)
        }
        progress.end()
        if options.json {
            sayAsIs(Scoreboard.json(rows, scenario: options.scenario, seed: options.seed))
        } else if options.markdown {
            sayAsIs(Scoreboard.markdown(rows))
        } else {
            let scenario = Scenario.named(options.scenario)?.summary ?? ""
            sayAsIs(
                Scoreboard.text(
                    rows,
                    heading: "Scenario \(options.scenario) (\(scenario)) · seed \(options.seed) · times in story ms\n",
                    width: StandardStream.output.terminal.columns))
            say("\n" + Scoreboard.legend)
        }
        return 0
    }

    private static func matrix(_ options: Options, steps: [LessonEntry], children: StepProcess) -> Int32 {
        let bugs = KnownBug.all
        let runs = BugMatrix.runs(bugs: bugs, steps: steps.map(\.number))
        let progress = ProgressLine(total: runs.count)
        let outcomes = runConcurrently(count: runs.count, jobs: options.jobs) { index in
            let run = runs[index]
            guard let entry = LessonCatalog.entry(run.lesson) else {
                return (outcome: Scoreboard.Outcome.failed("no such step"), crashes: 0)
            }
            progress.started("step \(entry.id) · \(run.scenario)")
            let result = children.runRetryingCrashes(entry, arguments: flags(run.scenario, options.seed))
            progress.finished()
            return result
        }
        progress.end()
        let byRun = Dictionary(uniqueKeysWithValues: zip(runs, outcomes.map(\.outcome)))
        let crashes = zip(runs, outcomes.map(\.crashes)).filter { $0.1 > 0 }
        if options.json {
            sayAsIs(matrixJSON(bugs: bugs, steps: steps, byRun: byRun))
            return 0
        }
        sayAsIs(
            BugMatrix.render(
                bugs: bugs, steps: steps, markdown: options.markdown,
                width: options.markdown ? nil : StandardStream.output.terminal.columns
            ) { byRun[$0] })
        say("\n✗ present · ✓ gone · – not measured · ← the step that fixes it · seed \(options.seed)")
        if !crashes.isEmpty {
            say(
                "runs that crashed and were run again: "
                    + crashes.map { "step \($0.0.lesson) on \($0.0.scenario) \($0.1)×" }.joined(separator: ", "))
        }
        return 0
    }

    private static func matrixJSON(
        bugs: [KnownBug], steps: [LessonEntry], byRun: [BugMatrix.Run: Scoreboard.Outcome]
    ) -> String {
        struct Cell: Encodable {
            let step: Int
            let present: Bool?
            let value: Double?
            let error: String?
        }
        struct Row: Encodable {
            let bug: String
            let scenario: String
            let measure: String
            let presentWhen: String
            let fixedIn: Int
            let steps: [Cell]
        }
        let rows = bugs.map { bug in
            Row(
                bug: bug.name, scenario: bug.scenario.name, measure: bug.measure.name,
                presentWhen: bug.presence.description, fixedIn: bug.fixedIn,
                steps: steps.map { step in
                    switch byRun[BugMatrix.run(for: bug, step: step.number)] {
                    case .measured(let report)?:
                        switch bug.verdict(report) {
                        case .present(let value): Cell(step: step.number, present: true, value: value, error: nil)
                        case .gone(let value): Cell(step: step.number, present: false, value: value, error: nil)
                        case .notMeasured:
                            Cell(
                                step: step.number, present: nil, value: nil,
                                error: "not measured: " + (bug.whyNotMeasured(report) ?? ""))
                        }
                    case .failed(let why)?: Cell(step: step.number, present: nil, value: nil, error: why)
                    case nil: Cell(step: step.number, present: nil, value: nil, error: "not run")
                    }
                })
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return (try? encoder.encode(rows)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    }

    static func flags(_ scenario: String, _ seed: UInt64) -> [String] {
        ["--scenario", scenario, "--seed", String(seed), "--clear-cache"]
    }
}

extension Double {
    /// "10" rather than "10.0".
    var clean: String { self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self) }
}
