import Foundation
import LessonKit

/// Tables a document carries exactly as a command prints them, between
///
///     <!-- generated: scoreboard -->
///     …
///     <!-- end generated -->
///
/// `scoreboard` is `lessons scoreboard --markdown` (every image step on
/// `standard`, seed 1); `matrix` is `lessons scoreboard --matrix --markdown`;
/// `report-keys` is the JSON report's keys as `ReportFigure` declares them.
/// On the story clock both are the same in every run, so a table that no
/// longer matches its runs is stale (`DocsTablesTests`), and `regenerate`
/// writes it again.
public enum GeneratedTables {
    public enum Kind: String, CaseIterable, Sendable {
        case scoreboard, matrix
        case reportKeys = "report-keys"
    }

    /// Plays a step on a named scenario (seed 1) and returns its report.
    public typealias Reports = (_ step: Int, _ scenario: String) async throws -> Report

    /// `text` with every generated table made again from `report`.
    public static func regenerate(_ text: String, report: Reports) async throws -> String {
        var result = ""
        var rest = text[...]
        while let start = rest.range(of: "<!-- generated: ") {
            guard let nameEnd = rest.range(of: " -->", range: start.upperBound..<rest.endIndex),
                let end = rest.range(of: "<!-- end generated -->", range: nameEnd.upperBound..<rest.endIndex),
                let kind = Kind(rawValue: String(rest[start.upperBound..<nameEnd.lowerBound]))
            else { throw FigureError("a generated table is not closed, or names no table this knows") }
            result += rest[..<nameEnd.upperBound] + "\n" + (try await table(kind, report: report)) + "\n"
            rest = rest[end.lowerBound...]
        }
        return result + rest
    }

    static func table(_ kind: Kind, report: Reports) async throws -> String {
        let steps = LessonCatalog.imageListSteps
        switch kind {
        case .scoreboard:
            var rows: [Scoreboard.Row] = []
            for step in steps {
                rows.append(
                    Scoreboard.Row(
                        lesson: step.id, title: step.title, outcome: .measured(try await report(step.number, "standard"))))
            }
            return Scoreboard.markdown(rows)
        case .matrix:
            var outcomes: [BugMatrix.Run: Scoreboard.Outcome] = [:]
            for run in BugMatrix.runs(bugs: KnownBug.all, steps: steps.map(\.number)) {
                outcomes[run] = .measured(try await report(run.lesson, run.scenario))
            }
            return BugMatrix.render(bugs: KnownBug.all, steps: steps, markdown: true) { outcomes[$0] }
        case .reportKeys:
            return ReportFigure.markdownTable
        }
    }
}
