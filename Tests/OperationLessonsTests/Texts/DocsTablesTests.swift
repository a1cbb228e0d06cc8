import Foundation
import LessonChecks
import LessonKit
import Testing

/// The tables a document carries as a command prints them (the scoreboard,
/// the bug matrix) are what the runs give today: on the story clock they are
/// the same in every run, so any difference is a stale table
/// (`swift run lessons docs --write` makes it again).
@Suite struct DocsTablesTests {
    @Test func everyGeneratedTableIsWhatItsRunsGive() async throws {
        var found = 0
        for file in FigureTests.texts {
            let text = try String(contentsOf: Rig.packageRoot.appendingPathComponent(file), encoding: .utf8)
            guard text.contains("<!-- generated: ") else { continue }
            found += 1
            // The tables read their runs one at a time: learn which they are (from tables made of empty
            // reports, thrown away), and play them all at once first.
            var runs: [ScoreboardRuns.Key] = []
            _ = try await GeneratedTables.regenerate(text) { step, scenario in
                runs.append(ScoreboardRuns.Key(step: step, scenario: scenario))
                return Report()
            }
            await ScoreboardRuns.playAtOnce(runs)
            let fresh = try await GeneratedTables.regenerate(text) { step, scenario in
                try #require(await ScoreboardRuns.report(step: step, scenario: scenario))
            }
            #expect(fresh == text, "\(file): a generated table is stale (swift run lessons docs --write)")
        }
        #expect(found > 0)
    }

    @Test func aStaleTableIsCaught() async throws {
        let text = "<!-- generated: scoreboard -->\n| old |\n<!-- end generated -->\n"
        let fresh = try await GeneratedTables.regenerate(text) { step, scenario in
            try #require(await ScoreboardRuns.report(step: step, scenario: scenario))
        }
        #expect(fresh != text && fresh.contains("| 01 synchronous load | 40/28 |"))
    }
}
