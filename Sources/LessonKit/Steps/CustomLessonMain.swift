import Foundation
import TableKit
import TerminalKit

/// The whole of `main.swift` for a step that is not a table (steps 8 and 9):
/// the same flags, errors, `--help`, `--json` and `--timeline` as
/// `LessonMain`, but the step plays its own story instead of a scenario.
///
///     exit(await CustomLessonMain.run(8, unsupported: TableFlag.allCases, plan: Plan.init) { plan, run in … })
///
/// `playedAs`: the entry whose name, texts and ending the run shows (a workbench's,
/// `LessonEntry.workbench()`, gives the task, not the fix); step `number`'s by default.
/// `stories` are the names `--scenario` takes: the stories the step can play
/// (what `same-figures` and the lesson texts replay). `plan` turns the flags
/// into what the step will do, or throws a `UsageError` (one line, then the
/// usage, exit status 2) before anything is shown. `play` runs the story on
/// the story clock (`run.trace.clock`, paced to `--speed` only when a person
/// watches a live terminal), printing through `run.console`, recording on
/// `run.trace`, and returns the step's own numbers for its `StoryReport`.
public enum CustomLessonMain {
    public static func run<Plan>(
        _ number: Int,
        playedAs shown: LessonEntry? = nil,
        stories: [String],
        stepFlags: [Flag<LessonOptions>] = [],
        unsupported: [TableFlag] = TableFlag.storyFlags,
        example: String = "",
        arguments: [String] = Array(CommandLine.arguments.dropFirst()),
        plan: (LessonOptions) throws(UsageError) -> Plan,
        play: (Plan, CustomLessonRun) async -> CustomLessonOutcome
    ) async -> Int32 {
        guard let entry = shown ?? LessonCatalog.entry(number) else {
            LessonMain.printError("lesson \(number) is not in the catalog")
            return 1
        }
        StandardStreams.checkAtStart()
        ExitCleanup.install()
        let status = await Self.play(
            entry, stories: stories, stepFlags: stepFlags, unsupported: unsupported, example: example,
            arguments: arguments, plan: plan, play: play)
        return StandardStreams.exitStatus(status, program: entry.target)
    }

    private static func play<Plan>(
        _ entry: LessonEntry, stories: [String], stepFlags: [Flag<LessonOptions>], unsupported: [TableFlag],
        example: String, arguments: [String], plan: (LessonOptions) throws(UsageError) -> Plan,
        play: (Plan, CustomLessonRun) async -> CustomLessonOutcome
    ) async -> Int32 {
        let program = entry.target
        // The flags it does not take are parsed, to be refused by name, and shown nowhere.
        let table = LessonOptions.table(
            scenarios: stories, stepFlags: stepFlags, hiding: Set(unsupported.map { "--" + $0.rawValue }))
        let usage = table.usage(program: program)
        let options: LessonOptions
        let thePlan: Plan
        do throws(UsageError) {
            options = try table.parse(arguments) ?? LessonOptions()
            try refuseWhatDoesNotApply(options, stories: stories, unsupported: unsupported)
            thePlan = try plan(options)
        } catch {
            LessonMain.printError("\(program): \(error)\n\(usage)")
            return 2
        }
        if options.help {
            StandardStream.output.line(
                wrapping: """
                    Lesson \(entry.id): \(entry.title)
                    Fixes: \(entry.fixes)
                    \(entry.lesson)
                    Text: \(entry.text)

                    \(usage)
                    """ + (example.isEmpty ? "" : "\n\nexample: \(example)"))
            return 0
        }
        if ToolchainContract.refuses(program) { return 1 }

        if let path = options.timelinePath, let problem = OutputFile.problem(at: path) {
            LessonMain.printError("\(program): cannot write the timeline to \(path): \(problem)")
            return 1
        }
        return await tell(entry, options: options) { run in await play(thePlan, run) }
    }

    /// A table flag given to a step that plays none, or a story it does not have, is a usage error.
    private static func refuseWhatDoesNotApply(
        _ options: LessonOptions, stories: [String], unsupported: [TableFlag]
    ) throws(UsageError) {
        if let flag = unsupported.first(where: { $0.isSet(in: options) }) {
            throw UsageError("--\(flag.rawValue) does not apply to this step (it plays no table scenario)")
        }
        if let story = options.scenario, !stories.contains(story) {
            throw UsageError("--scenario: no story '\(story)' here (stories: \(stories.joined(separator: ", ")))")
        }
    }

    /// Plays the story on a story clock of its own, then says its report as the options ask: the exit status.
    private static func tell(
        _ entry: LessonEntry, options: LessonOptions, play: (CustomLessonRun) async -> CustomLessonOutcome
    ) async -> Int32 {
        let program = entry.target
        let console = LessonConsole(options: options)
        // A live console may hide the cursor (step 9's screen): shown again however the run ends.
        if console.isLive { ExitCleanup.restoreScreen(with: "\u{1B}[0m\u{1B}[?25h\n") }
        let wallStart = ContinuousClock.now
        // Paced only for a person watching; otherwise as fast as the app allows.
        let clock = SleepClock(pace: console.isLive ? options.speed : nil)
        let trace = OperationTrace(clock: clock)
        let (outcome, violations) = await ExclusiveRun.run { instruments in
            let outcome = await play(CustomLessonRun(options: options, console: console, trace: trace))
            return (outcome, instruments.mainQueueViolations.count)
        }
        let stuck = clock.stuck
        clock.shutDown()

        let report = StoryReport(
            lesson: entry.id, title: entry.title, scenario: outcome.story, seed: options.seed, speed: options.speed,
            measures: outcome.measures, mainThreadViolations: violations, durationMs: trace.now(),
            runWallMs: (ContinuousClock.now - wallStart).milliseconds, machineNotes: outcome.machineNotes,
            stuck: stuck)
        if options.json {
            guard ReportChannel.send(report.json(), program: program) else { return 1 }
        } else {
            StandardStream.output.line(wrapping: "\n" + report.stepSummary(sentences: outcome.sentences))
            StandardStream.output.line(wrapping: LessonMain.ending(entry))
        }
        if let path = options.timelinePath {
            let title = "Lesson \(entry.id) · \(entry.title) · \(outcome.story)"
            do {
                try OutputFile.write(TimelineSVG.render(trace.timeline(title: title)), to: path)
            } catch {
                LessonMain.printError("\(program): cannot write the timeline to \(path): \(error.problem)")
                return 1
            }
        }
        return stuck == nil ? outcome.exitStatus : 1
    }
}

/// The common flags that only mean something for the table steps (a scenario,
/// a catalog, a disk cache, the icon network).
public enum TableFlag: String, CaseIterable, Sendable {
    case scenario, latency, offline
    case failRate = "fail-rate"
    case catalog
    case clearCache = "clear-cache"
    case frames

    func isSet(in options: LessonOptions) -> Bool {
        switch self {
        case .scenario: options.scenario != nil
        case .latency: options.latencyMs != nil
        case .offline: options.offline
        case .failRate: options.failRate != 0
        case .catalog: options.catalogPath != nil
        case .clearCache: options.clearCache
        case .frames: options.frames
        }
    }

    /// What a step that plays a story of its own does not take: all but `--scenario`, which names its story.
    public static let storyFlags = allCases.filter { $0 != .scenario }
}

/// What a custom step's `play` gets: the flags, where to print, where to record.
public struct CustomLessonRun: Sendable {
    public let options: LessonOptions
    public let console: LessonConsole
    public let trace: OperationTrace
}

/// What a custom step's `play` hands back.
public struct CustomLessonOutcome: Sendable {
    /// One word or phrase for the report's `scenario` key: what was played.
    public var story: String
    public var measures: [String: Double]
    /// How the summary says each measure, in the order the story played them.
    public var sentences: [MeasureSentence]
    /// What this machine's timing decided (wall times, races), each in a
    /// sentence: not story figures, so not in `measures`.
    public var machineNotes: [String]
    public var exitStatus: Int32

    public init(
        story: String, measures: [String: Double], sentences: [MeasureSentence] = [], machineNotes: [String] = [],
        exitStatus: Int32 = 0
    ) {
        self.story = story
        self.measures = measures
        self.sentences = sentences
        self.machineNotes = machineNotes
        self.exitStatus = exitStatus
    }
}

/// Where a custom step prints: nothing with `--json` (the report is the whole
/// output), cursor moves only on a terminal without `--plain` (nor `TERM=dumb`),
/// colours only there and without `NO_COLOR`.
public struct LessonConsole: Sendable {
    public let isSilent: Bool
    /// A terminal that may be redrawn in place.
    public let isLive: Bool
    public let showsColour: Bool

    public init(options: LessonOptions, output: TerminalOutput = .standardOutput) {
        isSilent = options.json
        isLive = !options.json && !options.plain && output.drawsInPlace
        showsColour = isLive && output.showsColour
    }

    /// A line of the story (with its newline), broken between words at a terminal's width.
    public func say(_ line: String = "") {
        guard !isSilent else { return }
        StandardStream.output.line(wrapping: line)
    }

    /// Text as it is (screen redraws, no newline added).
    public func write(_ text: String) {
        guard !isSilent else { return }
        StandardStream.output.write(text)
    }

    /// A ✓ or ✗ mark, green or red on a live terminal that shows colour.
    public func mark(_ good: Bool) -> String {
        guard showsColour else { return good ? "✓" : "✗" }
        return good ? "\u{1B}[32m✓\u{1B}[0m" : "\u{1B}[31m✗\u{1B}[0m"
    }
}
