import Foundation
import HarnessSync
import LessonKit
import TableKit
import TerminalKit

/// `lessons compare N` (also `lessons run N --compare`): step N and the step
/// before it play one scenario at the same time, on one story clock, and end
/// with one table of the figures that differ. A fix is seen beside its bug.
///
/// Each side is the step's own executable, a process of its own with a Caches
/// folder of its own (so both start cold, and step 4's race can take down only
/// its side), run with `--frames`: it plays unpaced and streams its screen
/// (`FrameStream`). This process paces both streams on one clock and lays
/// them out, every text from them made printable by `TerminalText`.
enum CompareCommand: LessonsCommand {
    static let name = "compare"
    static let abstract = "steps N-1 and N on one scenario, side by side: lessons compare N [flags]"
    struct Options {
        /// Set by the table's required `N`.
        var comparison: LessonComparison?
        var lesson = LessonOptions()
    }

    static var flags: FlagTable<Options> {
        // A step's flags, each side given them, but `--help` (compare's own) and the two it refuses by name.
        let refused = ["--clear-cache", "--frames"]
        let ownHelp = [
            "--scenario": "both play it (default: step N's own; "
                + LessonComparison.otherScenarios.joined(separator: "; ") + ")",
            "--speed": "X story seconds per wall second (default 1)",
            "--json": "both reports as JSON: {\"before\": …, \"after\": …}",
            "--plain": "no colours or cursor moves: each screen after each step",
            "--timeline": "both runs in one picture, one above the other",
        ]
        let step = LessonOptions.table(scenarios: Scenario.all.map(\.name)).flags.filter { $0.name != "--help" }
        return FlagTable(
            Options(),
            words: [
                .required(
                    "N",
                    help: LessonComparison.steps.map(String.init).joined(separator: ", ")
                        + ": N beside the step before (10: 7)",
                    missing: "compare needs a step number"
                ) { options, word throws(UsageError) in
                    guard let number = Int(word), let comparison = LessonComparison.of(number) else {
                        throw UsageError(LessonComparison.noComparison(word))
                    }
                    options.comparison = comparison
                }
            ],
            flags: step.map { flag in
                let shown = refused.contains(flag.name) ? flag.hidden : ownHelp[flag.name].map(flag.helping) ?? flag
                return shown.within(\.lesson)
            }, flagsSummary: "flags")
    }

    static let about = """
        Any other flag is as for a step (lessons run N --help), and goes to both sides. Each side starts with an \
        empty disk cache of its own. At the end, a table of the figures that differ.
        """

    static func parse(_ arguments: [String]) throws(UsageError) -> Options? {
        guard let options = try flags.parse(arguments) else { return nil }
        let lesson = options.lesson
        if lesson.clearCache {
            throw UsageError("--clear-cache does not apply: each side starts with an empty disk cache of its own")
        }
        if lesson.frames { throw UsageError("--frames does not apply: it is what each side streams to compare") }
        if let name = lesson.scenario, Scenario.named(name) == nil { throw .unknownScenario(name) }
        return options
    }

    static func run(_ options: Options) async throws -> Int32 {
        guard let comparison = options.comparison else { throw UsageError("compare needs a step number") }
        let lesson = options.lesson
        guard let children = stepProcesses(for: [comparison.before, comparison.after], command: name) else {
            return 1
        }
        if let path = lesson.timelinePath, let problem = OutputFile.problem(at: path) {
            printError("lessons compare: cannot write the timeline to \(path): \(problem)")
            return 1
        }
        let live = !lesson.json && !lesson.plain && TerminalScreen.standardOutputIsTerminal
        guard
            let (before, after) = try await play(
                comparison, lesson: lesson, children: children, paced: lesson.pace ?? live, live: live,
                plain: !lesson.json && !live)
        else { return 1 }
        if lesson.json {
            say(bothReports(before.report, after.report))
        } else {
            let columns = TerminalScreen.terminalSize().columns
            var tables = [(scenario: lesson.scenario ?? comparison.scenario, before.report, after.report)]
            // The step's other fix, on a scenario of its own; one asked for, or a picture, is one run.
            if let then = comparison.thenScenario, lesson.scenario == nil, lesson.timelinePath == nil {
                say()
                say(ReportComparison.wrap("Its other fix shows on \(then): both play it now.", to: columns))
                var second = lesson
                second.scenario = then
                guard
                    let (before, after) = try await play(
                        comparison, lesson: second, children: children, paced: lesson.pace ?? live, live: live,
                        plain: !live)
                else { return 1 }
                tables.append((then, before.report, after.report))
            }
            // Together at the end: a live screen redrawn for the second run would have hidden the first table.
            sayTables(tables, comparison, columns: columns)
        }
        if let path = lesson.timelinePath {
            do {
                try OutputFile.write(TimelineSVG.render(pair: before.timeline, after.timeline), to: path)
            } catch {
                printError("lessons compare: cannot write the timeline to \(path): \(error.problem)")
                return 1
            }
        }
        return 0
    }

    /// Each scenario's table of the figures that differ, then the lesson of the step compared.
    private static func sayTables(
        _ tables: [(scenario: String, Report, Report)], _ comparison: LessonComparison, columns: Int
    ) {
        let names = (before: "step \(comparison.before.number)", after: "step \(comparison.after.number)")
        for (scenario, before, after) in tables {
            say()
            if tables.count > 1 { say("On \(scenario):") }
            say(
                ReportComparison.table(
                    before: before, after: after, beforeName: names.before, afterName: names.after,
                    columns: columns))
            if let why = ReportComparison.moreRequests(
                before: before, after: after, beforeName: names.before, afterName: names.after)
            {
                say(ReportComparison.wrap(why, to: columns))
            }
        }
        say()
        say(
            ReportComparison.wrap(
                "The lesson of step \(comparison.after.number): \(comparison.after.lesson)", to: columns))
        say(ReportComparison.wrap("Read it beside the code: \(comparison.after.text)", to: columns))
    }

    /// Plays both sides and hands back their reports and timelines; nil (each
    /// failure said on standard error) when a side gave none.
    static func play(
        _ comparison: LessonComparison, lesson: LessonOptions, children: StepProcess, paced: Bool = false,
        live: Bool = false, plain: Bool = false, attempts: Int = 1
    ) async throws -> (before: FrameStream.End, after: FrameStream.End)? {
        let scenario = Scenario.named(lesson.scenario ?? comparison.scenario) ?? .standard
        let flags = childFlags(lesson, scenario: scenario.name)
        for attempt in 1...max(1, attempts) {
            let sides = try [comparison.before, comparison.after].map { entry in
                try SideRun(entry: entry, executable: children.executable(for: entry), flags: flags)
            }
            let player = Player(
                comparison: comparison, scenario: scenario, sides: sides, speed: lesson.speed, paced: paced,
                live: live, plain: plain)
            await player.play()
            if let before = sides[0].end, let after = sides[1].end { return (before, after) }
            // A racy step's crash is worth another run when the caller allows one; anything else is said at once.
            if attempt < attempts, sides.allSatisfy({ $0.end != nil || $0.crashed }) { continue }
            for side in sides where side.end == nil {
                printError("lessons compare: step \(side.entry.number) \(side.failure)")
            }
            return nil
        }
        return nil
    }

    /// The flags both sides play with: the scenario, and whatever shapes the story.
    static func childFlags(_ lesson: LessonOptions, scenario: String) -> [String] {
        var flags = ["--frames", "--scenario", scenario, "--seed", String(lesson.seed), "--speed", "\(lesson.speed)"]
        if let latency = lesson.latencyMs { flags += ["--latency", "\(latency)"] }
        if lesson.offline { flags.append("--offline") }
        if lesson.failRate != 0 { flags += ["--fail-rate", "\(lesson.failRate)"] }
        if let catalog = lesson.catalogPath { flags += ["--catalog", catalog] }
        return flags
    }

    /// `{"before": …, "after": …}`, each the step's own `--json` report.
    static func bothReports(_ before: Report, _ after: Report) -> String {
        func object(_ report: Report) -> Any {
            (try? JSONSerialization.jsonObject(with: Data(report.json().utf8))) ?? [:]
        }
        let both = ["before": object(before), "after": object(after)]
        guard let data = try? JSONSerialization.data(withJSONObject: both, options: [.prettyPrinted, .sortedKeys])
        else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// One side of a comparison: its step's executable, running, and what it streamed.
final class SideRun: @unchecked Sendable {
    let entry: LessonEntry
    let reader = FrameStream.Reader()
    private let child: RunningChild
    private let caches: URL
    private let lock = Locked(.seen)
    private var finished: ChildProcess.Finished?

    init(entry: LessonEntry, executable: URL, flags: [String]) throws {
        self.entry = entry
        caches = try ScratchFolder.make("OperationLessons-compare")
        var process = ChildProcess(executable, flags)
        process.environment = ["XDG_CACHE_HOME": caches.path]
        let reader = reader
        process.output = .stream { reader.receive($0) }
        child = try process.launch()
        Thread.detachNewThread { [self] in
            let ended = child.wait()
            ScratchFolder.remove(caches)
            lock.withLock { finished = ended }
        }
    }

    /// Whether the process has ended and its output has all been read.
    var hasEnded: Bool { lock.withLock { finished != nil } }

    /// The run's report and timeline, when it ended well.
    var end: FrameStream.End? {
        guard let finished = lock.withLock({ finished }), finished.exited, finished.status == 0 else { return nil }
        return reader.end
    }

    /// Ended by a signal: a crash.
    var crashed: Bool { lock.withLock { finished?.signal != nil } }

    /// What went wrong, in words, for a side without an end.
    var failure: String {
        guard let finished = lock.withLock({ finished }) else { return "is still running" }
        if let signal = finished.signal {
            return "crashed (signal \(signal)), so there is no table: before step \(LessonCatalog.dataRaceFixedIn) the "
                + "cache is written from download threads at once, a race that crashes now and then; run the comparison again"
        }
        if let problem = reader.brokenBecause { return "stopped: \(problem)" }
        let firstLine = finished.errors.split(separator: "\n").first.map(String.init) ?? "no report"
        return "exited with status \(finished.status): \(firstLine)"
    }

    /// How the side's title says where it is.
    func state(at storyMs: Double, shown: ScreenFrame?) -> String {
        if let end = end, storyMs >= end.report.durationMs {
            return "finished at \(seconds(end.report.durationMs))"
        }
        if hasEnded && end == nil {
            return lock.withLock { finished?.signal }.map { "crashed (signal \($0))" } ?? "stopped"
        }
        return shown == nil ? "\(seconds(storyMs)), nothing drawn yet" : seconds(storyMs)
    }

    private func seconds(_ ms: Double) -> String { String(format: "%.1f s", ms / 1000) }
}

/// Plays both sides' frames on one story clock: paced at `speed` story
/// seconds per wall second for a person watching, else as they come.
private struct Player {
    let comparison: LessonComparison
    let scenario: Scenario
    let sides: [SideRun]
    let speed: Double
    let paced: Bool
    /// Redraw the comparison in place (a terminal).
    let live: Bool
    /// Print each side's screen after each script step, as text.
    let plain: Bool

    static let reset = "\u{1B}[0m\u{1B}[?25h"

    func play() async {
        let header =
            "compare \(comparison.after.number) · step \(comparison.before.number) → step \(comparison.after.number)"
            + " · \(scenario.name): \(scenario.summary)"
        if live {
            ExitCleanup.restoreScreen(with: Self.reset + "\n")
            StandardStream.output.write("\u{1B}[2J\u{1B}[?25l")
        } else if plain {
            say(ReportComparison.wrap(TerminalText.printable(header), to: TerminalScreen.terminalSize().columns))
        }
        let start = ContinuousClock.now
        var pending: [[ScreenFrame]] = [[], []]
        var shown: [ScreenFrame?] = [nil, nil]
        while true {
            let allEnded = sides.allSatisfy(\.hasEnded)
            if !paced && !allEnded {
                try? await Task.sleep(for: .milliseconds(20))
                continue
            }
            for (index, side) in sides.enumerated() { pending[index] += side.reader.takeFrames() }
            let elapsed = (ContinuousClock.now - start).components
            let wallMs = Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15
            let storyNow = paced ? wallMs * speed : .infinity
            var closed: [(ms: Double, side: Int, frame: ScreenFrame)] = []
            for index in sides.indices {
                while let next = pending[index].first, next.storyMs <= storyNow {
                    shown[index] = next
                    pending[index].removeFirst()
                    if next.finishedStep != nil { closed.append((next.storyMs, index, next)) }
                }
            }
            let lastMs = sides.compactMap { $0.end?.report.durationMs }.max() ?? 0
            let clockMs = min(storyNow, sides.allSatisfy(\.hasEnded) ? lastMs : storyNow)
            if live {
                draw(header: header, shown: shown, storyMs: clockMs)
            } else if plain {
                for step in closed.sorted(by: { ($0.ms, $0.side) < ($1.ms, $1.side) }) {
                    printStep(step.frame, side: sides[step.side])
                }
            }
            if allEnded && pending.allSatisfy(\.isEmpty) && storyNow >= lastMs { break }
            try? await Task.sleep(for: .milliseconds(33))
        }
        if live {
            StandardStream.output.write(Self.reset + "\n")
            ExitCleanup.restoreScreen(with: nil)
        }
    }

    private func draw(header: String, shown: [ScreenFrame?], storyMs: Double) {
        let size = TerminalScreen.terminalSize()
        let screen = ComparisonScreen(style: .colour, lines: size.lines, columns: size.columns)
        let before = ComparisonScreen.Side(
            title: "step \(sides[0].entry.number) · \(sides[0].entry.title)", frame: shown[0],
            state: sides[0].state(at: storyMs, shown: shown[0]))
        let after = ComparisonScreen.Side(
            title: "step \(sides[1].entry.number) · \(sides[1].entry.title)", frame: shown[1],
            state: sides[1].state(at: storyMs, shown: shown[1]))
        StandardStream.output.write(screen.render(header: header, before: before, after: after))
    }

    private func printStep(_ frame: ScreenFrame, side: SideRun) {
        let screen = ComparisonScreen(style: .plain, lines: 0, columns: TerminalScreen.terminalSize().columns)
        let title = String(format: "step \(side.entry.number) at %.1f s", frame.storyMs / 1000)
        say()
        say(
            screen.renderSide(
                ComparisonScreen.Side(title: title, frame: frame, state: "after \(frame.finishedStep ?? "")")))
    }
}
