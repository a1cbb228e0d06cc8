import Foundation
import Testing

@testable import LessonKit

/// Each figure of the report is declared once (`ReportFigure`), and the words
/// around it (the compare table's labels, the scoreboard's columns, the
/// summary's sentences, docs/cli.md's table of keys) come from there.
@Suite struct ReportFigureTests {
    /// The keys the encoder writes for `report`: no `null` filled in, as `Report.json()` does.
    static func encodedKeys(_ report: Report) throws -> Set<String> {
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report))
        return Set(try #require(object as? [String: Any]).keys)
    }

    /// A report with every figure measured: no optional left nil, so the encoder writes every key.
    static var everyFigureMeasured: Report {
        var report = Report()
        (report.requestsAfterRelaunch, report.requestsAfterMemoryWarning, report.downloadQueueLimit) = (0, 0, 0)
        (report.timeToAllVisibleMs, report.idealTimeToAllVisibleMs) = (0, 0)
        (report.liveImageBytes, report.diskReads, report.diskReadFiles, report.stuck) = (0, 0, [], "")
        return report
    }

    @Test func everyKeyOfTheJSONReportIsDeclaredOnce() throws {
        let declared = ReportFigure.all.map(\.key)
        let twice = Dictionary(grouping: declared, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        #expect(twice.isEmpty, "declared twice: \(twice)")
        let encoded = try Self.encodedKeys(Self.everyFigureMeasured)
        #expect(encoded.subtracting(declared).isEmpty, "not declared: \(encoded.subtracting(declared).sorted())")
        let unwritten = Set(declared).subtracting(encoded)
        #expect(unwritten.isEmpty, "not in the JSON: \(unwritten.sorted())")
        // What may be null is what the encoder leaves out when it was not measured.
        let absentWhenUnmeasured = encoded.subtracting(try Self.encodedKeys(Report()))
        #expect(Set(ReportFigure.all.filter(\.canBeNull).map(\.key)) == absentWhenUnmeasured)
    }

    /// Each declared figure reads its own key: a report whose numbers all differ, read back from JSON.
    @Test func everyFigureReadsItsOwnKey() throws {
        var object = try #require(
            try JSONSerialization.jsonObject(with: Data(Self.everyFigureMeasured.json().utf8)) as? [String: Any])
        var expected: [String: Double] = [:]
        for (index, key) in object.keys.sorted().enumerated() where object[key] is NSNumber && key != "controllerFreed"
        {
            object[key] = index + 1
            expected[key] = Double(index + 1)
        }
        object["controllerFreed"] = true
        expected["controllerFreed"] = 1
        let report = try Report.read(JSONSerialization.data(withJSONObject: object), from: "the test's report")
        for figure in ReportFigure.all {
            #expect(figure.number(report) == expected[figure.key], "\(figure.key) reads another figure")
        }
        #expect(expected.count > 40)
    }

    @Test func theCompareTableAndTheScoreboardSayTheDeclaredWords() {
        let labels = ReportFigure.all.compactMap(\.label)
        #expect(labels.count == Set(labels).count, "two figures share a label")
        let compared = ReportComparison.figures.map(\.label)
        #expect(compared.count == Set(compared).count)
        #expect(Set(compared).isSubset(of: labels), "not declared: \(Set(compared).subtracting(labels).sorted())")
        let declared = Set(ReportFigure.all.map(\.key))
        for column in Scoreboard.columns {
            #expect(!column.figures.isEmpty, "\(column.header)")
            #expect(column.figures.allSatisfy { declared.contains($0.key) }, "\(column.header)")
        }
    }

    /// A figure's sentence is said when it happened: a count above 0, or an absent-able one that was measured.
    @Test func theSummarySaysAFigureInItsDeclaredSentence() {
        var report = Report()
        #expect(ReportFigure.duplicateRequests.said(in: report) == nil)
        #expect(ReportFigure.requestsAfterRelaunch.said(in: report) == nil)
        report.duplicateRequests = 1
        report.requestsAfterRelaunch = 0
        #expect(
            ReportFigure.duplicateRequests.said(in: report)
                == "1 request asked for an icon already in flight (a duplicate).")
        #expect(ReportFigure.requestsAfterRelaunch.said(in: report) == "After the relaunch: 0 requests.")
        for sentence in [ReportFigure.duplicateRequests, .requestsAfterRelaunch].compactMap({ $0.said(in: report) }) {
            #expect(report.summary.contains(sentence))
        }
    }
}
