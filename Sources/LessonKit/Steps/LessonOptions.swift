import Foundation

/// The flags every lesson accepts (docs/cli.md), parsed in one place.
// More than 12 stored properties: the command line, a property per flag of the table (docs/cli.md).
public struct LessonOptions: Codable, Equatable, Sendable {
    public var scenario: String?
    /// Network latency in milliseconds of story time; nil: the tutorials' 500 ms.
    public var latencyMs: Double?
    /// Story seconds per wall second, when the run is paced.
    public var speed: Double = 1
    /// Whether to pace the story for a person watching (`--pace`, `--no-pace`);
    /// nil: paced when the live screen is on a terminal.
    public var pace: Bool?
    public var offline = false
    public var failRate: Double = 0
    public var seed: UInt64 = 1
    public var json = false
    /// Print the screen as a stream of JSON lines (`FrameStream`), then the
    /// report and timeline: what `lessons compare` reads from each side.
    public var frames = false
    public var timelinePath: String?
    public var plain = false
    public var catalogPath: String?
    public var clearCache = false
    public var help = false
    /// The values of a step's own flags (`Flag.step`: step 9's `--script`), by name without dashes.
    public var extra: [String: String] = [:]

    public init() {}

    /// Every lesson's flags, then `stepFlags` (a step's own, `Flag.step`); `hiding` the
    /// common ones a step does not take, which it then parses only to refuse.
    public static func table(
        scenarios: [String], stepFlags: [Flag<LessonOptions>] = [], hiding: Set<String> = []
    ) -> FlagTable<LessonOptions> {
        let common: [Flag<LessonOptions>] = [
            .switch("--help", short: "-h", \.help, help: "what this lesson shows, these flags, an example"),
            .value(
                "--scenario", .text("NAME"), \.scenario,
                help: "the script to play: \(scenarios.joined(separator: ", "))"),
            .value(
                "--latency", .number("MS", in: 0...60_000), \.latencyMs,
                help: "network latency in ms (the tutorials' 500 by default)"),
            .value(
                "--speed", .number("X", in: 0.1...1000), \.speed,
                help: "play the story X times faster than real time (default 1)"),
            .switch("--pace", \.pace, to: true, help: "play at --speed for a person watching (default on a terminal)"),
            .switch(
                "--no-pace", \.pace, to: false,
                help: "play as fast as the machine allows (default with --json or off a terminal)"),
            .switch("--offline", \.offline, help: "start with the network offline"),
            .value(
                "--fail-rate", .number("P", in: 0...1), \.failRate,
                help: "each request fails with probability P (0…1), drawn from the seed"),
            .value("--seed", .seed, \.seed, help: "the seed for jitter and faults (same seed, same faults)"),
            .switch("--json", \.json, help: "print the report as JSON instead of the screen"),
            .switch(
                "--frames", \.frames,
                help: "print the screen as JSON lines, then the report (what lessons compare reads)"),
            .value("--timeline", .text("FILE.svg"), \.timelinePath, help: "write the timeline picture"),
            .switch("--plain", \.plain, help: "no colours or cursor moves (automatic when not a terminal)"),
            .value("--catalog", .text("FILE"), \.catalogPath, help: "load another app catalog (plist)"),
            .switch("--clear-cache", \.clearCache, help: "empty this step's disk cache first"),
        ]
        let flags = (common + stepFlags).map { hiding.contains($0.name) ? $0.hidden : $0 }
        return FlagTable(LessonOptions(), flags: flags, helpColumn: 23, flagsSummary: "flags")
    }

    /// Parses the arguments (without the program name). Unknown flags,
    /// missing values and malformed numbers are errors that say which flag.
    public static func parse(
        _ arguments: [String], stepFlags: [Flag<LessonOptions>] = []
    ) throws(UsageError) -> LessonOptions {
        // The table has a `--help` of its own, so it always gives options.
        try table(scenarios: [], stepFlags: stepFlags).parse(arguments) ?? LessonOptions()
    }

    /// The flag list `--help` and usage errors print.
    public static func usage(program: String, scenarios: [String], stepFlags: [Flag<LessonOptions>] = []) -> String {
        table(scenarios: scenarios, stepFlags: stepFlags).usage(program: program)
    }
}

/// A command line that cannot be used; printed as one line, then the usage, exit status 2.
public struct UsageError: Error, Equatable, CustomStringConvertible, Sendable {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
