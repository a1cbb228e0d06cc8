import Foundation
import TableKit
import TerminalKit

/// The whole story in one table: every image-list step run on the same
/// scenario and seed, a row per step, a column per key measure.
///
/// The runs themselves are made elsewhere (`lessons scoreboard` runs each step
/// as a child process; the tests run them in process); this type only turns
/// their reports into a table, Markdown or JSON, so every form shows the same
/// columns computed the same way.
public enum Scoreboard {
    /// One step's run: its report, or why there is none (a crash is a result too).
    public struct Row: Sendable {
        public let lesson: String
        public let title: String
        public let outcome: Outcome
        /// Runs of this step that crashed before the one shown (step 4's racy
        /// dictionary can bring its process down): worth knowing, so counted.
        public let crashedRuns: Int

        public init(lesson: String, title: String, outcome: Outcome, crashedRuns: Int = 0) {
            self.lesson = lesson
            self.title = title
            self.outcome = outcome
            self.crashedRuns = crashedRuns
        }

        public var report: Report? {
            if case .measured(let report) = outcome { report } else { nil }
        }
    }

    public enum Outcome: Sendable {
        case measured(Report)
        /// The run produced no report: "crashed (signal 11)", "exit status 2: …".
        case failed(String)
    }

    /// A column: its header, the Report key(s) it comes from, how it is printed,
    /// and how it is measured (for the docs and `--help`).
    public struct Column: Sendable {
        public let header: String
        public let keys: [String]
        public let cell: @Sendable (Report) -> String
        public let measuredBy: String
    }

    public static let columns: [Column] = [
        Column(
            header: "requests", keys: ["requests", "uniqueURLs"],
            cell: { "\($0.requests)/\($0.uniqueURLs)" },
            measuredBy: "RequestLog: every fetch the network served, and the distinct URLs among them"),
        Column(
            header: "dups", keys: ["duplicateRequests"], cell: { "\($0.duplicateRequests)" },
            measuredBy:
                "RequestLog.duplicateRequests: fetches started while an earlier fetch of the same URL was running"),
        Column(
            header: "bytes", keys: ["bytes"], cell: { "\($0.bytes)" },
            measuredBy: "RequestLog.bytes: body bytes the network delivered"),
        Column(
            header: "blocked", keys: ["peakBlockedThreads"], cell: { "\($0.peakBlockedThreads)" },
            measuredBy:
                "RequestLog: the most threads waiting in the network at once (a blocking fetch holds its thread "
                + "until the answer comes; SlowNetwork.fetch holds none)"),
        Column(
            header: "stall ms", keys: ["maxMainStallMs"], cell: { whole($0.maxMainStallMs) },
            measuredBy: "FrameRecorder: the longest gap between two frames on the main queue, minus one frame"),
        Column(
            header: "dropped", keys: ["droppedFrames"], cell: { "\($0.droppedFrames)" },
            measuredBy: "FrameRecorder: 60 Hz refreshes that showed no new frame because the main queue was busy"),
        Column(
            header: "placeholder", keys: ["placeholderFrames"], cell: { "\($0.placeholderFrames)" },
            measuredBy: "FrameRecorder: refreshes in which some visible row showed the placeholder"),
        Column(
            header: "wrong", keys: ["wrongImageFrames"], cell: { "\($0.wrongImageFrames)" },
            measuredBy: "FrameRecorder: refreshes in which some visible row showed another row's icon"),
        Column(
            header: "all icons ms", keys: ["timeToAllVisibleMs"],
            cell: { $0.timeToAllVisibleMs.map(whole) ?? "never" },
            measuredBy:
                "FrameRecorder: from the launch to the first frame in which every visible row shows its own icon"),
        Column(
            header: "× ideal", keys: ["timeToAllVisibleMs", "idealTimeToAllVisibleMs"],
            cell: { report in
                guard let time = report.timeToAllVisibleMs, let ideal = report.idealTimeToAllVisibleMs, ideal > 0 else {
                    return "—"
                }
                return String(format: "%.2f", time / ideal)
            },
            measuredBy:
                "PhysicalLimit: all icons ÷ the first screen's downloads packed onto the queue's limit, no overhead"),
        Column(
            header: "kept B", keys: ["liveImageBytes"],
            cell: { $0.liveImageBytes.map { "\($0)" } ?? "n/a" },
            measuredBy:
                "Instruments: decoded image bytes still alive after the memory warning, not counting those cells show"),
        Column(
            header: "freed", keys: ["controllerFreed"], cell: { $0.controllerFreed ? "yes" : "no" },
            measuredBy:
                "ScenarioRunner: after the run the harness lets go of the controller; a weak reference says if it died"),
    ]

    /// What the short headers mean, printed under the table.
    /// One paragraph: a terminal's width breaks it (`StandardStream.line(wrapping:)`).
    public static let legend = """
        requests: requests / unique URLs · dups: requests started while the same URL was in flight · blocked: most \
        threads waiting in the network at once · stall: longest main-queue stall · dropped, placeholder, wrong: 60 Hz \
        refreshes frozen, showing a placeholder, showing another row's icon · all icons: launch to every visible row \
        showing its own icon · × ideal: that time ÷ the physical limit (PhysicalLimit) · kept: image bytes alive after \
        the memory warning · freed: the controller died when the screen went away
        """

    /// The table for a terminal: aligned columns, one line per step; on a
    /// terminal narrower than that (`width`), cut into parts that fit, the
    /// steps named in full in the first part and by number after.
    public static func text(_ rows: [Row], heading: String, width: Int? = nil) -> String {
        let table = TextTable(
            keyHeader: "step", columns: columns.map { TextTable.Column($0.header) },
            rows: rows.map { row in
                let key = "\(row.lesson) \(row.title)"
                switch row.outcome {
                case .measured(let report):
                    return TextTable.Row(key: key, shortKey: row.lesson, cells: columns.map { $0.cell(report) })
                case .failed(let why): return TextTable.Row(key: key, shortKey: row.lesson, note: why)
                }
            })
        let lines = [TerminalText.wrapped(heading, width: width), table.rendered(width: width)] + crashNotes(rows)
        return lines.joined(separator: "\n")
    }

    /// The same table as Markdown (docs/performance.md).
    public static func markdown(_ rows: [Row]) -> String {
        var lines = [
            "| step | " + columns.map(\.header).joined(separator: " | ") + " |",
            "|---|" + String(repeating: "---:|", count: columns.count),
        ]
        for row in rows {
            let cells: [String]
            switch row.outcome {
            case .measured(let report): cells = columns.map { $0.cell(report) }
            case .failed(let why): cells = [why] + Array(repeating: "", count: columns.count - 1)
            }
            lines.append("| \(row.lesson) \(row.title) | " + cells.joined(separator: " | ") + " |")
        }
        let notes = crashNotes(rows)
        return (lines + (notes.isEmpty ? [] : [""] + notes)).joined(separator: "\n")
    }

    /// Every step's full report (or its failure), with the run's settings.
    public static func json(_ rows: [Row], scenario: String, seed: UInt64) -> String {
        struct Step: Encodable {
            let lesson: String
            let title: String
            let report: Report?
            let error: String?
            let crashedRuns: Int
        }
        struct Board: Encodable {
            let scenario: String
            let seed: UInt64
            let steps: [Step]
        }
        let board = Board(
            scenario: scenario, seed: seed,
            steps: rows.map { row in
                switch row.outcome {
                case .measured(let report):
                    Step(lesson: row.lesson, title: row.title, report: report, error: nil, crashedRuns: row.crashedRuns)
                case .failed(let why):
                    Step(lesson: row.lesson, title: row.title, report: nil, error: why, crashedRuns: row.crashedRuns)
                }
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(board) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    private static func crashNotes(_ rows: [Row]) -> [String] {
        rows.filter { $0.crashedRuns > 0 }.map { row in
            "step \(row.lesson) crashed in \(counted(row.crashedRuns, "run")) before this one"
                + (row.report == nil ? "" : " (a data race can take its process down)")
        }
    }

    static func whole(_ value: Double) -> String { String(Int(value.rounded())) }
}
