import Foundation

/// What a step that plays a story of its own (steps 8 and 9) measured, and
/// nothing else: printed as a summary and, with `--json`, as this object
/// (keys in docs/cli.md). Its story figures are on the story clock, the same
/// in every run of the same flags; what the machine's timing decided is in
/// `runWallMs` and `machineNotes`.
public struct StoryReport: Codable, Equatable, Sendable {
    public var lesson: String
    public var title: String
    /// What was played: "software update, variant both", "script start,…".
    public var scenario: String
    public var seed: UInt64
    public var speed: Double
    /// The story's own figures, by name (`TourSentences`, `LotterySentences` say each).
    public var measures: [String: Double]
    /// UI touched off the main queue, as TableKit recorded it.
    public var mainThreadViolations: Int
    /// How long the story lasted, in story milliseconds.
    public var durationMs: Double
    /// How long the run took on this machine.
    public var runWallMs: Double
    /// What this machine's timing decided (wall times, races between
    /// threads), each in a sentence.
    public var machineNotes: [String]
    /// Set when the story clock gave up: what kept it still.
    public var stuck: String?

    public init(
        lesson: String, title: String, scenario: String, seed: UInt64, speed: Double, measures: [String: Double],
        mainThreadViolations: Int, durationMs: Double, runWallMs: Double, machineNotes: [String], stuck: String?
    ) {
        self.lesson = lesson
        self.title = title
        self.scenario = scenario
        self.seed = seed
        self.speed = speed
        self.measures = measures
        self.mainThreadViolations = mainThreadViolations
        self.durationMs = durationMs
        self.runWallMs = runWallMs
        self.machineNotes = machineNotes
        self.stuck = stuck
    }

    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        // A measure that divided by zero is written as a string rather than losing the report.
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The summary: each measure in a sentence (`sentences`, in the story's
    /// order; a measure without one, by its key), the UI touched off the main
    /// queue, how long it took, and what the machine decided.
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
                : "  UI was touched off the main queue \(mainThreadViolations) \(mainThreadViolations == 1 ? "time" : "times")."
        )
        lines.append(String(format: "  The story took %.0f ms (%.0f ms on this machine).", durationMs, runWallMs))
        for note in machineNotes { lines.append("  This machine: \(note).") }
        if let stuck { lines.append("  The story clock gave up: \(stuck).") }
        return lines.joined(separator: "\n")
    }
}

extension Report {
    /// A story's report where the tools read a table step's (`lessons docs`,
    /// the figure checks): its measures and counts, every table figure zero.
    public init(_ story: StoryReport) {
        self.init()
        self.lesson = story.lesson
        self.title = story.title
        self.scenario = story.scenario
        self.seed = story.seed
        self.speed = story.speed
        self.measures = story.measures
        self.mainThreadViolations = story.mainThreadViolations
        self.durationMs = story.durationMs
        self.runWallMs = story.runWallMs
        self.stuck = story.stuck
    }

    /// A step's `--json` output read back from `source`: a table step's
    /// report, or a story's; refused in one sentence when it is neither (`read`).
    public static func decoded(from data: Data, source: String = "the step's report") throws -> Report {
        if let story = try? JSONDecoder().decode(StoryReport.self, from: data) { return Report(story) }
        return try read(data, from: source)
    }
}
