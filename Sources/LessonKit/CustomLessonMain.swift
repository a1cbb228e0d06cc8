import Foundation
import TableKit

/// The whole of `main.swift` for a step that is not a table (steps 8 and 9):
/// the same flags, errors, `--help`, `--json` and `--timeline` as
/// `LessonMain`, but the step plays its own story instead of a scenario.
///
///     exit(await CustomLessonMain.run(8, unsupported: TableFlag.allCases, plan: Plan.init) { plan, run in … })
///
/// `plan` turns the flags into what the step will do, or throws a
/// `UsageError` (one line, then the usage, exit status 2) before anything is
/// shown. `play` runs the story, printing through `run.console`, recording on
/// `run.trace`, and returns the step's own numbers for the report's `measures`.
public enum CustomLessonMain {
    public static func run<Plan>(
        _ number: Int,
        extraFlags: [LessonOptions.ExtraFlag] = [],
        unsupported: [TableFlag] = TableFlag.allCases,
        example: String = "",
        arguments: [String] = Array(CommandLine.arguments.dropFirst()),
        plan: (LessonOptions) throws(UsageError) -> Plan,
        play: (Plan, CustomLessonRun) async -> CustomLessonOutcome
    ) async -> Int32 {
        guard let entry = LessonCatalog.entry(number) else {
            LessonMain.printError("lesson \(number) is not in the catalog")
            return 1
        }
        StandardStreams.checkAtStart()
        ExitCleanup.install()
        let status = await Self.play(
            entry, extraFlags: extraFlags, unsupported: unsupported, example: example, arguments: arguments, plan: plan,
            play: play)
        return StandardStreams.exitStatus(status, program: entry.target)
    }

    private static func play<Plan>(
        _ entry: LessonEntry, extraFlags: [LessonOptions.ExtraFlag], unsupported: [TableFlag], example: String,
        arguments: [String], plan: (LessonOptions) throws(UsageError) -> Plan,
        play: (Plan, CustomLessonRun) async -> CustomLessonOutcome
    ) async -> Int32 {
        let program = entry.target
        let usage = Self.usage(program: program, extraFlags: extraFlags, unsupported: unsupported)
        let options: LessonOptions
        let thePlan: Plan
        do throws(UsageError) {
            options = try LessonOptions.parse(arguments, extraFlags: extraFlags)
            if let flag = unsupported.first(where: { $0.isSet(in: options) }) {
                throw UsageError("--\(flag.rawValue) does not apply to this step (it plays no table scenario)")
            }
            // A list flag (`--part`) given nothing to play would play nothing and say nothing.
            if let empty = extraFlags.first(where: { flag in
                options.extra[flag.name].map { $0.split(separator: ",").allSatisfy { $0.allSatisfy(\.isWhitespace) } }
                    ?? false
            }) {
                throw UsageError("--\(empty.name) needs a value")
            }
            thePlan = try plan(options)
        } catch {
            LessonMain.printError("\(program): \(error.suggesting(from: usage))\n\(usage)")
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

        if let path = options.timelinePath, let problem = OutputFile.problem(at: path) {
            LessonMain.printError("\(program): cannot write the timeline to \(path): \(problem)")
            return 1
        }
        let console = LessonConsole(options: options)
        // A live console may hide the cursor (step 9's screen): shown again however the run ends.
        if console.isLive { ExitCleanup.restoreScreen(with: "\u{1B}[0m\u{1B}[?25h\n") }
        let trace = OperationTrace()
        let (outcome, violations) = await ExclusiveRun.run { instruments in
            let outcome = await play(thePlan, CustomLessonRun(options: options, console: console, trace: trace))
            return (outcome, instruments.mainQueueViolations.count)
        }

        var report = Report()
        report.lesson = entry.id
        report.title = entry.title
        report.scenario = outcome.story
        report.seed = options.seed
        report.speed = options.speed
        report.mainThreadViolations = violations
        report.measures = outcome.measures
        report.durationMs = trace.now()
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
        return outcome.exitStatus
    }

    /// The common usage without the flags this step does not take.
    static func usage(program: String, extraFlags: [LessonOptions.ExtraFlag], unsupported: [TableFlag]) -> String {
        let full = LessonOptions.usage(program: program, scenarios: Scenario.all.map(\.name), extraFlags: extraFlags)
        let dropped = Set(unsupported.map { "--" + $0.rawValue })
        return full.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { line in
                let flag = line.drop { $0 == " " }.prefix { $0 != " " }
                return !dropped.contains(String(flag))
            }
            .joined(separator: "\n")
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
}

/// What a custom step's `play` gets: the flags, where to print, where to record.
public struct CustomLessonRun: Sendable {
    public let options: LessonOptions
    public let console: LessonConsole
    public let trace: OperationTrace

    public init(options: LessonOptions, console: LessonConsole, trace: OperationTrace) {
        self.options = options
        self.console = console
        self.trace = trace
    }
}

/// What a custom step's `play` hands back.
public struct CustomLessonOutcome: Sendable {
    /// One word or phrase for the report's `scenario` key: what was played.
    public var story: String
    public var measures: [String: Double]
    /// How the summary says each measure, in the order the story played them.
    public var sentences: [MeasureSentence]
    public var exitStatus: Int32

    public init(story: String, measures: [String: Double], sentences: [MeasureSentence] = [], exitStatus: Int32 = 0)
    {
        self.story = story
        self.measures = measures
        self.sentences = sentences
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

extension Report {
    /// The summary of a step that is not a table: each of its measures in a
    /// sentence (`sentences`, in the story's order; a measure without one, by
    /// its key), the UI touched off the main queue, how long it took.
    public func stepSummary(sentences: [MeasureSentence]) -> String {
        var lines = ["Lesson \(lesson) · \(title) · \(scenario) · seed \(seed) · speed \(speed.formatted)×"]
        for sentence in sentences {
            guard let value = measures[sentence.key] else { continue }
            // A sentence that ends in "," or ";" goes on with the next one.
            if let last = lines.last, last.hasSuffix(",") || last.hasSuffix(";") {
                lines[lines.count - 1] += " " + sentence.say(value)
            } else {
                lines.append("  " + sentence.say(value))
            }
        }
        let said = Set(sentences.map(\.key))
        for (key, value) in measures.sorted(by: { $0.key < $1.key }) where !said.contains(key) {
            lines.append("  \(key): \(value.formatted)")
        }
        lines.append(
            mainThreadViolations == 0
                ? "  No UI was touched off the main queue."
                : "  UI was touched off the main queue \(mainThreadViolations) \(mainThreadViolations == 1 ? "time" : "times").")
        lines.append(String(format: "  It took %.0f ms.", durationMs))
        return lines.joined(separator: "\n")
    }
}
