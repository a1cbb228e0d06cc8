/// One figure of the report, declared once: its key in the JSON (`--json`),
/// its unit and what it means (docs/cli.md's table of keys is made from these),
/// what one of it is called in a sentence, and how the compare table says it.
/// The compare table, the scoreboard, the summary a run prints and the checker
/// take a figure's words from here; `all` holds one for every key of the JSON.
public struct ReportFigure: Sendable {
    /// What a figure is measured in, as docs/cli.md's table says it.
    public enum Unit: String, Sendable {
        case count, bytes, refreshes, files, factor, object
        case text = "string", wholeNumber = "whole number", storyMs = "story ms", yesNo = "true/false"
        case wallMs = "wall ms", cpuMs = "CPU ms", objects = "list of objects", sentences = "list of strings"
        case numbers = "object of numbers"
    }

    /// Its key in the JSON report.
    public let key: String
    public let unit: Unit
    /// Whether the JSON may hold `null` for it: not measured in this run.
    public let canBeNull: Bool
    /// What it means, in the words of docs/cli.md's table.
    public let meaning: String
    /// What one of it is called in a sentence ("request"); nil for a figure that is no count.
    public let noun: String?
    /// What it counts, as the compare table says it; nil for a figure the table leaves out.
    public let label: String?
    /// How the summary says it when it happened, `{}` standing for the count and its noun.
    public let sentence: String?
    /// Its value in a report as a number (true is 1); nil when not measured, or when it is no number.
    public let number: @Sendable (Report) -> Double?

    /// A figure that is no number (a name, a list, an object).
    init(
        _ key: String, _ unit: Unit, canBeNull: Bool = false, noun: String? = nil, label: String? = nil,
        sentence: String? = nil, meaning: String, number: @escaping @Sendable (Report) -> Double? = { _ in nil }
    ) {
        self.key = key
        self.unit = unit
        self.canBeNull = canBeNull
        self.meaning = meaning
        self.noun = noun
        self.label = label
        self.sentence = sentence
        self.number = number
    }

    init(
        _ key: String, _ figure: KeyPath<Report, Int> & Sendable, _ unit: Unit, noun: String? = nil,
        label: String? = nil, sentence: String? = nil, meaning: String
    ) {
        self.init(key, unit, noun: noun, label: label, sentence: sentence, meaning: meaning) {
            Double($0[keyPath: figure])
        }
    }

    init(
        _ key: String, _ figure: KeyPath<Report, Int?> & Sendable, _ unit: Unit, noun: String? = nil,
        label: String? = nil, sentence: String? = nil, meaning: String
    ) {
        self.init(key, unit, canBeNull: true, noun: noun, label: label, sentence: sentence, meaning: meaning) {
            $0[keyPath: figure].map(Double.init)
        }
    }

    init(
        _ key: String, _ figure: KeyPath<Report, Double> & Sendable, _ unit: Unit, label: String? = nil,
        meaning: String
    ) {
        self.init(key, unit, label: label, meaning: meaning) { $0[keyPath: figure] }
    }

    init(
        _ key: String, _ figure: KeyPath<Report, Double?> & Sendable, _ unit: Unit, label: String? = nil,
        meaning: String
    ) {
        self.init(key, unit, canBeNull: true, label: label, meaning: meaning) { $0[keyPath: figure] }
    }

    init(
        _ key: String, _ figure: KeyPath<Report, Bool> & Sendable, _ unit: Unit, label: String? = nil,
        meaning: String
    ) {
        self.init(key, unit, label: label, meaning: meaning) { $0[keyPath: figure] ? 1 : 0 }
    }

    /// `count` with the figure's noun: "1 request", "28 requests".
    public func counted(_ count: Int) -> String { LessonKit.counted(count, noun ?? key) }

    /// The figure's value in `report` with its noun; 0 when not measured.
    public func counted(in report: Report) -> String { counted(Int(number(report) ?? 0)) }

    /// The summary's sentence for it in `report`, said only when it happened:
    /// a count above 0, or one that can be absent and was measured.
    public func said(in report: Report) -> String? {
        guard let sentence, let value = number(report), canBeNull || value > 0 else { return nil }
        return sentence.replacingOccurrences(of: "{}", with: counted(Int(value)))
    }

    /// Its value in `report` as a table's cell: yes or no, else `format`ted, or `absent` when not measured.
    func cell(_ report: Report, absent: String, _ format: (Double) -> String) -> String {
        guard let value = number(report) else { return absent }
        return unit == .yesNo ? (value == 1 ? "yes" : "no") : format(value)
    }

    /// A story time as a learner reads it: "850 ms", "12.5 s".
    public static func milliseconds(_ value: Double) -> String {
        value >= 10_000 ? String(format: "%.1f s", value / 1000) : String(format: "%.0f ms", value)
    }

    /// docs/cli.md's table of the JSON report's keys, a row per figure.
    public static var markdownTable: String {
        let rows = all.map { figure in
            "| `\(figure.key)` | \(figure.meaning) | \(figure.unit.rawValue)\(figure.canBeNull ? " or null" : "") |"
        }
        return (["| key | meaning | unit |", "|---|---|---|"] + rows).joined(separator: "\n")
    }
}
