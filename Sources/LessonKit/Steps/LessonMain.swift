import Foundation
import LessonSupport
import SlowNetwork
import TableKit
import TerminalKit

/// The whole of a lesson executable's `main.swift`:
/// `exit(await LessonMain.run(AppsViewController.self))`: the same line in
/// every image step; the step is the module the controller comes from.
///
/// Parses the common flags, plays the scenario on screen (or as plain text, or
/// silently with `--json`), prints the report and the one-sentence lesson.
/// Exit status: 0 after a run, 2 for a bad command line, 1 for bad input files.
public enum LessonMain {
    public static func run(
        _ controller: any LessonController.Type, arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) async -> Int32 {
        let module = String(String(reflecting: controller).prefix { $0 != "." })
        guard let entry = LessonCatalog.all.first(where: { $0.target == module }) else {
            printError("\(module) is not a step in the catalog")
            return 1
        }
        return await run(entry, controller: controller, variants: controller.variants, arguments: arguments)
    }

    /// The same for an entry of its own (the exercises' workbench runs a
    /// step's scenarios under its own name).
    public static func run(
        _ entry: LessonEntry, controller: any LessonController.Type, variants: [LessonVariant] = [],
        arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) async -> Int32 {
        StandardStreams.checkAtStart()
        ExitCleanup.install()
        let status = await play(entry, controller: controller, variants: variants, arguments: arguments)
        return StandardStreams.exitStatus(status, program: entry.target)
    }

    private static func play(
        _ entry: LessonEntry, controller: any LessonController.Type, variants: [LessonVariant], arguments: [String]
    ) async -> Int32 {
        let program = entry.target
        do throws(Stop) {
            let line = try commandLine(entry, variants: variants, arguments: arguments)
            if line.options.help {
                StandardStream.output.line(wrapping: help(entry, usage: line.usage))
                return 0
            }
            if ToolchainContract.refuses(program) { return 1 }
            let (session, scenario) = try story(entry, line)
            if let path = line.options.timelinePath, let problem = OutputFile.problem(at: path) {
                throw Stop("\(program): cannot write the timeline to \(path): \(problem)")
            }
            let launch = try Launch(entry, line, scenario: scenario)
            defer { launch.snapshot?.remove() }
            let result = await run(
                entry, controller: line.variant?.controller ?? controller, line, launch, session: session,
                scenario: scenario)
            return finish(entry, line, launch, session: session, result: result)
        } catch {
            printError(error.message)
            return error.status
        }
    }

    /// Why a run ends before it plays: its message (then the usage, for a bad command line) and exit status.
    private struct Stop: Error {
        let message: String
        let status: Int32

        init(_ message: String, status: Int32 = 1) {
            self.message = message
            self.status = status
        }

        static func usage(_ program: String, _ error: any Error, _ usage: String) -> Stop {
            Stop("\(program): \(error)\n\(usage)", status: 2)
        }
    }

    /// The command line a run was given: its options, the variant they chose, the usage errors print.
    private struct Invocation {
        let options: LessonOptions
        let variant: LessonVariant?
        let usage: String
        /// The run's report goes over `ReportChannel` as the story ends (`--json`, no frames, a harness reading).
        var handsOverAtTheEnd: Bool { options.json && !options.frames && ReportChannel.isToHarness }
    }

    private static func commandLine(
        _ entry: LessonEntry, variants: [LessonVariant], arguments: [String]
    ) throws(Stop) -> Invocation {
        let flags = variants.map { Flag.step("--" + $0.flag, help: $0.help) } + PlaySession.flags
        let table = LessonOptions.table(scenarios: Scenario.all.map(\.name), stepFlags: flags)
        let usage = table.usage(program: entry.target)
        let options: LessonOptions
        do {
            options = try table.parse(arguments) ?? LessonOptions()
        } catch {
            throw .usage(entry.target, error, usage)
        }
        let chosen = variants.filter { options.extra[$0.flag] != nil }
        guard chosen.count <= 1 else {
            let flags = chosen.map { "--" + $0.flag }.joined(separator: ", ")
            throw Stop("\(entry.target): choose one of \(flags)\n\(usage)", status: 2)
        }
        return Invocation(options: options, variant: chosen.first, usage: usage)
    }

    /// What is played: the learner's keys (`--play`, `--script`), or a scenario.
    private static func story(
        _ entry: LessonEntry, _ line: Invocation
    ) throws(Stop) -> (session: PlaySession?, scenario: Scenario) {
        let program = entry.target
        let session: PlaySession?
        do {
            session = try PlaySession.from(line.options, liveScreen: Screen.isLive(line.options))
        } catch let error as UsageError {
            throw .usage(program, error, line.usage)
        } catch {
            throw Stop("\(program): \(error)")
        }
        let scenarioName = line.options.scenario ?? entry.defaultScenario
        guard let scenario = session?.scenario ?? Scenario.named(scenarioName) else {
            throw .usage(program, UsageError.unknownScenario(scenarioName), line.usage)
        }
        return (session, scenario)
    }

    /// What this launch starts from. This process may be the app's relaunch (`CarriedLaunch`): the story goes on,
    /// on the caches folder as it is, and on the copy of the catalog the first process made.
    private struct Launch {
        let carried: CarriedLaunch?
        let snapshot: CatalogSnapshot?
        let cachesDirectory: URL
        /// The step's own scenario, played on an emptied disk cache (`LessonEntry.ownScenarioStartsCold`).
        let startsCold: Bool

        init(_ entry: LessonEntry, _ line: Invocation, scenario: Scenario) throws(Stop) {
            let options = line.options
            do {
                let carried = try CarriedLaunch.fromEnvironment()
                self.carried = carried
                snapshot = try options.catalogPath.map { path in
                    try carried.map { try CatalogSnapshot(takingOver: $0.catalog) } ?? CatalogSnapshot(path: path)
                }
            } catch {
                throw Stop("\(entry.target): \(error)")
            }
            cachesDirectory = LessonMain.cachesDirectory(for: entry, variant: line.variant)
            startsCold = entry.ownScenarioStartsCold && scenario.name == entry.defaultScenario
            if carried == nil, options.clearCache || startsCold, let problem = CacheFolder.clear(cachesDirectory) {
                snapshot?.remove()
                let what = options.clearCache ? "--clear-cache" : "emptying the disk cache"
                throw Stop("\(entry.target): \(what): \(problem)")
            }
            CacheFolder.removeAbandonedWrites(in: cachesDirectory)
        }
    }

    /// Plays the scenario on the screen the options ask for, the learner's keys listened to if a session plays.
    private static func run(
        _ entry: LessonEntry, controller: any LessonController.Type, _ line: Invocation, _ launch: Launch,
        session: PlaySession?, scenario: Scenario
    ) async -> ScenarioResult {
        let options = line.options
        let stream = options.frames ? FrameStream.Writer { StandardStream.output.write($0) } : nil
        let goesOn = launch.carried != nil
        let screen = Screen(
            options: options, entry: entry, scenario: scenario, stream: stream, session: session, goesOn: goesOn)
        screen.begin(goesOn: goesOn)
        let keyboard = session?.listen()
        var setup = ScenarioSetup(
            lesson: entry.id, title: entry.title + (line.variant.map { " (--\($0.flag))" } ?? ""),
            controller: controller, scenario: scenario, options: options,
            catalog: launch.snapshot?.catalog ?? .bundled(), cachesDirectory: launch.cachesDirectory,
            display: screen.display, paced: options.pace ?? screen.live)
        setup.carried = launch.carried
        setup.relaunchesAsNewProcess = true
        // Handed over as the story ends: a crash after that, from what the network's shutdown fails, is one the
        // harness knows came after the story; so is one while the screen goes away (the controller's teardown).
        if line.handsOverAtTheEnd {
            let program = entry.target
            setup.storyOver = { report in _ = ReportChannel.send(report.json(), program: program) }
            setup.screenGoesAway = { report in
                if let report { _ = ReportChannel.send(report.json(), program: program) } else { ReportChannel.withdraw() }
            }
        }
        let result = await ScenarioRunner.run(setup)
        keyboard?.restore()
        screen.end()
        if let stream { stream.end(FrameStream.End(report: result.report, timeline: result.timeline)) }
        return result
    }

    /// The report as the options ask for it, the session's keys written, the timeline drawn: the exit status.
    private static func finish(
        _ entry: LessonEntry, _ line: Invocation, _ launch: Launch, session: PlaySession?, result: ScenarioResult
    ) -> Int32 {
        let program = entry.target
        let options = line.options
        // With --frames, the stream ended with the report and the timeline.
        if options.json && !options.frames {
            // Sent again, when handed over already, only if the run got stuck since.
            if !line.handsOverAtTheEnd || result.report.stuck != nil {
                guard ReportChannel.send(result.report.json(), program: program) else { return 1 }
            }
        } else if !options.frames {
            var summary = result.report.summary.split(separator: "\n", omittingEmptySubsequences: false)
            if launch.startsCold && !options.clearCache {
                summary.insert(
                    "  Disk cache: emptied first, as for every run of step \(entry.number)'s own scenario: icons an "
                        + "earlier run left on disk would skip the downloads it is about.", at: 1)
            }
            StandardStream.output.line(wrapping: TerminalText.printableLines(summary.joined(separator: "\n")))
            StandardStream.output.line(wrapping: ending(entry))
        }
        if let problem = session?.record() {
            printError("\(program): \(problem)")
            return 1
        }
        if let stuck = result.report.stuck {
            printError("\(program): the run was stopped: \(stuck)")
            StuckRun.backtraceIfAsked()
            return 1
        }
        if let path = options.timelinePath {
            do {
                try OutputFile.write(TimelineSVG.render(result.timeline), to: path)
            } catch {
                printError("\(program): cannot write the timeline to \(path): \(error.problem)")
                return 1
            }
        }
        return 0
    }

    /// This step's own folder in the user's Caches directory (`~/.cache` on
    /// Linux, honouring `XDG_CACHE_HOME`): the tutorials' "sandbox".
    /// A variant keeps its own folder beside the step's, so the two never read each other's files.
    public static func cachesDirectory(for entry: LessonEntry, variant: LessonVariant? = nil) -> URL {
        let caches =
            FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        let folder = entry.target + (variant.map { "-" + $0.flag } ?? "")
        return caches.appendingPathComponent("OperationLessons").appendingPathComponent(folder)
    }

    static func help(_ entry: LessonEntry, usage: String) -> String {
        """
        Lesson \(entry.id): \(entry.title)
        Fixes: \(entry.fixes)
        \(entry.lesson)
        Default scenario: \(entry.defaultScenario). Text: \(entry.text)

        \(usage)

        example: swift run \(entry.target) --speed 5 --timeline /tmp/lesson\(entry.id).svg
        """
    }

    /// The last lines of a run: where to read about it, the one-sentence
    /// lesson, and what is still broken (the next step's hook).
    static func ending(_ entry: LessonEntry) -> String {
        "\nRead it beside the code: \(entry.text)\n\(entry.lessonHeading): \(entry.lesson)"
            + (entry.stillBroken.map { "\n" + $0.prefix(1).uppercased() + $0.dropFirst() } ?? "")
    }

    /// One message on standard error, its characters made printable (a
    /// catalog's path or a parser's complaint may hold anything).
    static func printError(_ message: String) {
        StandardStream.error.message(message)
    }
}

/// Where the run is shown: a live colour screen on a terminal, plain text
/// snapshots after each script step otherwise, nothing with `--json`, a
/// stream of frames with `--frames`.
private struct Screen: Sendable {
    let display: (@Sendable (ScreenFrame) -> Void)?
    /// A live colour screen on a terminal: what a person watches, so the story is paced.
    let live: Bool
    private let header: String

    /// Whether the options and standard output make a live screen.
    static func isLive(_ options: LessonOptions) -> Bool {
        !options.frames && !options.json && !options.plain && TerminalScreen.standardOutputIsTerminal
    }

    /// `session`: a step played by hand, whose keys are listed under the table.
    /// `goesOn`: this process is the app's relaunch; the header is up already.
    init(
        options: LessonOptions, entry: LessonEntry, scenario: Scenario, stream: FrameStream.Writer?,
        session: PlaySession?, goesOn: Bool
    ) {
        let header = "Lesson \(entry.id) · \(entry.title) · scenario \(scenario.name): \(scenario.summary)"
        self.header = header
        live = Self.isLive(options)
        if let stream {
            display = { stream.frame($0) }
        } else if options.json {
            display = nil
        } else if live {
            let terminal = TerminalScreen(style: .colour)
            display = { frame in
                let status = [frame.status] + (session?.keyLines ?? [])
                write(terminal.render(header: header, snapshot: frame.snapshot, marks: frame.marks, status: status))
            }
        } else {
            let terminal = TerminalScreen(style: .plain)
            // Broken between words at a terminal's width (or COLUMNS'); to a pipe, as it is.
            let columns = TerminalOutput.standardOutput.columns
            if !goesOn { write(TerminalText.wrapped(TerminalText.printable(header), width: columns) + "\n") }
            display = { frame in
                guard let step = frame.finishedStep else { return }
                let screen = terminal.render(
                    header: "", snapshot: frame.snapshot, marks: frame.marks, status: [frame.status])
                write(TerminalText.wrapped("\nafter \(step):\n" + screen.dropFirst(), width: columns))
            }
        }
    }

    /// Colours back to normal, the cursor shown.
    static let reset = "\u{1B}[0m\u{1B}[?25h"

    func begin(goesOn: Bool) {
        guard live else { return }
        // Hide the cursor, and have it shown again however the run ends
        // (`ExitCleanup`'s handlers run even while step 1 blocks the main queue).
        ExitCleanup.restoreScreen(with: Self.reset + "\n")
        if goesOn { return }
        // The header goes up at once: a step that blocks the main queue at
        // launch (step 1) draws no frame for seconds, and an empty terminal looks hung.
        // Cut to the terminal's width, as every frame's header is: a wrapped one would push the table down.
        let columns = TerminalScreen.terminalSize().columns
        write("\u{1B}[2J\u{1B}[?25l\u{1B}[H" + TerminalText.fitted(header, to: columns, padded: false) + "\n")
    }

    func end() {
        guard live else { return }
        write(Self.reset + "\n\n")
        ExitCleanup.restoreScreen(with: nil)
    }
}

private func write(_ text: some StringProtocol) {
    StandardStream.output.write(text)
}
