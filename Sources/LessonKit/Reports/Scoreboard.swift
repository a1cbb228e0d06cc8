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

    /// A column: its header, the figures it shows and how, and what the header means under the table.
    public struct Column: Sendable {
        public let header: String
        public let figures: [ReportFigure]
        public let cell: @Sendable (Report) -> String
        /// The legend's entry for it; nil when the entry of a column before it says it too.
        let legend: String?

        init(
            _ header: String, _ figures: [ReportFigure], legend: String?, cell: @escaping @Sendable (Report) -> String
        ) {
            self.header = header
            self.figures = figures
            self.legend = legend
            self.cell = cell
        }

        /// One figure, as a whole number (yes or no), `absent` when not measured.
        init(_ header: String, _ figure: ReportFigure, absent: String = "—", legend: String?) {
            self.init(header, [figure], legend: legend) { figure.cell($0, absent: absent, Scoreboard.whole) }
        }
    }

    public static let columns: [Column] = [
        Column("requests", [.requests, .uniqueURLs], legend: "requests: requests / unique URLs") {
            "\($0.requests)/\($0.uniqueURLs)"
        },
        Column("dups", .duplicateRequests, legend: "dups: requests started while the same URL was in flight"),
        Column("bytes", .bytes, legend: nil),
        Column("blocked", .peakBlockedThreads, legend: "blocked: most threads waiting in the network at once"),
        Column("stall ms", .maxMainStallMs, legend: "stall: longest main-queue stall"),
        Column(
            "dropped", .droppedFrames,
            legend: "dropped, placeholder, wrong: 60 Hz refreshes frozen, showing a placeholder, showing another "
                + "row's icon"),
        Column("placeholder", .placeholderFrames, legend: nil),
        Column("wrong", .wrongImageFrames, legend: nil),
        Column(
            "all icons ms", .timeToAllVisibleMs, absent: "never",
            legend: "all icons: launch to every visible row showing its own icon"),
        Column(
            "× ideal", [.timeToAllVisibleMs, .idealTimeToAllVisibleMs],
            legend: "× ideal: that time ÷ the physical limit (PhysicalLimit)"
        ) { report in
            guard let time = report.timeToAllVisibleMs, let ideal = report.idealTimeToAllVisibleMs, ideal > 0 else {
                return "—"
            }
            return String(format: "%.2f", time / ideal)
        },
        Column("kept B", .liveImageBytes, absent: "n/a", legend: "kept: image bytes alive after the memory warning"),
        Column("freed", .controllerFreed, legend: "freed: the controller died when the screen went away"),
    ]

    /// What the short headers mean, printed under the table.
    /// One paragraph: a terminal's width breaks it (`StandardStream.line(wrapping:)`).
    public static let legend = columns.compactMap(\.legend).joined(separator: " · ")

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
