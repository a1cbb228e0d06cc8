import Foundation
import LessonKit

/// Bugs × steps, each cell measured.
public enum BugMatrix {
    /// One run the matrix needs: a step on a scenario.
    public struct Run: Hashable, Sendable {
        public let lesson: Int
        public let scenario: String
    }

    /// The runs that measure `bugs` on `steps`, each once, however many bugs share it.
    public static func runs(bugs: [KnownBug], steps: [Int]) -> [Run] {
        var seen = Set<Run>()
        var runs: [Run] = []
        for bug in bugs {
            for step in steps {
                let run = Run(lesson: step, scenario: bug.scenario.name)
                if seen.insert(run).inserted { runs.append(run) }
            }
        }
        return runs
    }

    public static func run(for bug: KnownBug, step: Int) -> Run {
        Run(lesson: step, scenario: bug.scenario.name)
    }

    /// The matrix as text or Markdown: a row per bug, a column per step. A cell
    /// is ✗ (present) or ✓ (gone) with the number; the step that fixes the bug
    /// is marked; a run that crashed says so.
    public static func render(
        bugs: [KnownBug], steps: [LessonEntry], markdown: Bool,
        outcome: (Run) -> Scoreboard.Outcome?
    ) -> String {
        // The terminal table leaves the measure's name out (it is in --markdown and --json): it is wide enough.
        let header = ["bug", "scenario"] + (markdown ? ["measure"] : []) + steps.map { "step \($0.id)" }
        var rows: [[String]] = []
        for bug in bugs {
            var cells = [bug.name, bug.scenario.name]
            if markdown { cells.append(bug.measure.name + (bug.measure.units.isEmpty ? "" : " (\(bug.measure.units))")) }
            for step in steps {
                let mark = step.number == bug.fixedIn ? (markdown ? " ←" : "←") : ""
                switch outcome(run(for: bug, step: step.number)) {
                case .measured(let report)?:
                    cells.append(cell(bug.verdict(report), measure: bug.measure, markdown: markdown) + mark)
                case .failed(let why)?:
                    cells.append((why.hasPrefix("crashed") ? "crash" : "error") + mark)
                case nil:
                    cells.append("—")
                }
            }
            rows.append(cells)
        }
        if markdown {
            var lines = [
                "| " + header.joined(separator: " | ") + " |",
                "|---|---|---|" + String(repeating: "---|", count: steps.count),
            ]
            lines += rows.map { "| " + $0.joined(separator: " | ") + " |" }
            return lines.joined(separator: "\n")
        }
        let table = [header] + rows
        let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        return table.map { cells in
            cells.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }
                .joined(separator: "  ")
        }.joined(separator: "\n")
    }

    private static func cell(_ verdict: Verdict, measure: Measure, markdown: Bool) -> String {
        switch verdict {
        case .present(let value): markdown ? "**✗ \(measure.cell(value))**" : "✗ \(measure.cell(value))"
        case .gone(let value): "✓ \(measure.cell(value))"
        case .notMeasured: "n/a"
        }
    }
}
