import TableKit
import TerminalKit

/// Two reports of one scenario, before a fix and after it, as the table a
/// compare run ends with: one line per figure that differs, in words.
public enum ReportComparison {
    /// A figure as the table says it: what it counts, and its value in a report.
    struct Figure: Sendable {
        let label: String
        let value: @Sendable (Report) -> String

        /// A figure of the report, in its declared words; a time that never came is "never", an absent count "—".
        init(_ figure: ReportFigure) {
            label = figure.label ?? figure.key
            value = { report in
                figure.unit == .storyMs
                    ? figure.cell(report, absent: "never", ReportFigure.milliseconds)
                    : figure.cell(report, absent: "—") { String(Int($0)) }
            }
        }

        /// A count out of a total: "7 of 8".
        init(_ figure: ReportFigure, of total: ReportFigure) {
            label = figure.label ?? figure.key
            value = { "\(Int(figure.number($0) ?? 0)) of \(Int(total.number($0) ?? 0))" }
        }
    }

    /// The figures the table compares, in its order.
    static let figures: [Figure] = {
        let network: [ReportFigure] = [
            .requests, .uniqueURLs, .duplicateRequests, .failedRequests, .bytes, .maxInFlight, .peakBlockedThreads,
            .requestsOnMainQueue, .requestsStartedWhileScrolling, .requestsAfterRelaunch, .requestsAfterMemoryWarning,
            .staleDeliveries, .liveImageBytes,
        ]
        let screen: [ReportFigure] = [
            .maxMainStallMs, .droppedFrames, .blankFrames, .placeholderFrames, .wrongImageFrames, .timeToAllVisibleMs,
        ]
        let app: [ReportFigure] = [
            .mainThreadViolations, .controllerFreed, .cellsCreated, .progressReports, .diskCacheFiles, .durationMs,
        ]
        return (network + screen).map(Figure.init) + [Figure(.ownIconsAtEnd, of: .visibleRowsAtEnd)]
            + app.map(Figure.init)
    }()

    /// The figures whose values differ: what each counts, and its two values.
    public static func differences(_ before: Report, _ after: Report) -> [(
        label: String, before: String, after: String
    )] {
        figures.compactMap { figure in
            let values = (figure.value(before), figure.value(after))
            return values.0 == values.1 ? nil : (figure.label, values.0, values.1)
        }
    }

    /// Why the fixed step made more requests, when the reason is in the
    /// figures: it let images go on the memory warning, and asked for them
    /// again after it (step 4's cache against step 3's model). nil otherwise.
    public static func moreRequests(before: Report, after: Report, beforeName: String, afterName: String)
        -> String?
    {
        guard after.requests > before.requests, let keptBefore = before.liveImageBytes,
            let keptAfter = after.liveImageBytes, keptAfter < keptBefore,
            let askedAfter = after.requestsAfterMemoryWarning,
            // Every extra request is one made after the warning.
            after.requests - before.requests <= askedAfter - (before.requestsAfterMemoryWarning ?? 0)
        else { return nil }
        let askedBefore = before.requestsAfterMemoryWarning ?? 0
        let subject = afterName.prefix(1).uppercased() + afterName.dropFirst()
        return "\(subject) makes more requests (\(before.requests) → \(after.requests)) because it lets images go: "
            + "after the memory warning it kept \(keptAfter) bytes of them (\(beforeName): \(keptBefore)), "
            + "and made \(askedAfter) requests after it (\(beforeName): \(askedBefore))."
    }

    /// The table, every line at most `columns` wide: a label too long for its
    /// column goes on over the next lines, under itself.
    public static func table(
        before: Report, after: Report, beforeName: String, afterName: String, columns: Int
    ) -> String {
        let rows = differences(before, after)
        guard !rows.isEmpty else { return "The two runs gave the same figures." }
        let valueWidth = max(
            rows.map { max($0.before.count, $0.after.count) }.max() ?? 0, beforeName.count, afterName.count)
        let labelWidth = min(rows.map(\.label.count).max() ?? 0, max(16, columns - 2 * (valueWidth + 2)))
        func line(_ label: String, _ left: String, _ right: String) -> String {
            label.padding(toLength: labelWidth, withPad: " ", startingAt: 0) + "  "
                + left.leftPadded(to: valueWidth) + "  " + right.leftPadded(to: valueWidth)
        }
        var lines = [line("", beforeName, afterName)]
        for row in rows {
            let pieces = wrapped(row.label, to: labelWidth)
            lines.append(line(pieces[0], row.before, row.after))
            lines += pieces.dropFirst().map { "  " + $0 }
        }
        return lines.map { TerminalText.printable($0).trimmingTrailingSpaces }.joined(separator: "\n")
    }

    /// `text` broken between words into lines of at most `width` characters,
    /// the lines after the first indented by two.
    public static func wrap(_ text: String, to width: Int) -> String {
        wrapped(text, to: width).enumerated().map { $0.offset == 0 ? $0.element : "  " + $0.element }
            .joined(separator: "\n")
    }

    /// `text` in lines of at most `width` characters, broken between words
    /// (the lines after the first are two shorter: they are indented).
    static func wrapped(_ text: String, to width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            let limit = lines.isEmpty ? width : width - 2
            if !current.isEmpty && current.count + 1 + word.count > limit {
                lines.append(current)
                current = String(word)
            } else {
                current += (current.isEmpty ? "" : " ") + word
            }
        }
        return lines + [current]
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
