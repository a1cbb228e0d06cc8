import Foundation
import LessonKit
import TableKit
import TerminalKit

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
    /// is ✗ (present) or ✓ (gone) with the number, or – where the run could
    /// not measure it (the bug's situation never arose: no file written, no
    /// download started), said why under the table; the step that fixes the
    /// bug is marked; a run that crashed says so. On a terminal narrower than
    /// the text table (`width`), the bugs are numbered and listed first, with
    /// what their number counts, and the table holds the bare numbers.
    public static func render(
        bugs: [KnownBug], steps: [LessonEntry], markdown: Bool, width: Int? = nil,
        outcome: (Run) -> Scoreboard.Outcome?
    ) -> String {
        // The terminal table leaves the measure's name out (it is in --markdown and --json): it is wide enough.
        let header = ["bug", "scenario"] + (markdown ? ["measure"] : []) + steps.map { "step \($0.id)" }
        var rows: [[String]] = []
        for bug in bugs {
            var cells = [bug.name, bug.scenario.name]
            if markdown { cells.append(bug.measure.name + (bug.measure.units.isEmpty ? "" : " (\(bug.measure.units))")) }
            for step in steps {
                cells.append(cell(bug, step: step, outcome: outcome, bold: markdown, mark: markdown ? " ←" : "←"))
            }
            rows.append(cells)
        }
        let notes = unmeasuredNotes(bugs: bugs, steps: steps, outcome: outcome)
        if markdown {
            var lines = [
                "| " + header.joined(separator: " | ") + " |",
                "|---|---|---|" + String(repeating: "---|", count: steps.count),
            ]
            lines += rows.map { "| " + $0.joined(separator: " | ") + " |" }
            return (lines + (notes.isEmpty ? [] : [""] + notes)).joined(separator: "\n")
        }
        let wide = TextTable(
            keyHeader: header[0], columns: header.dropFirst().map { TextTable.Column($0, alignedRight: false) },
            rows: rows.map { TextTable.Row(key: $0[0], cells: Array($0.dropFirst())) }, ruled: false)
        let text = wide.rendered(width: nil)
        guard let width, text.split(separator: "\n").contains(where: { TerminalText.width(of: $0) > width }) else {
            return ([text] + notes).joined(separator: "\n")
        }
        return narrow(bugs: bugs, steps: steps, width: width, outcome: outcome)
            + notes.map { "\n" + TerminalText.wrapped($0, width: width) }.joined()
    }

    /// The matrix for a narrow terminal: the bugs numbered, each with its
    /// scenario and what its number counts; then a table of bare numbers.
    static func narrow(
        bugs: [KnownBug], steps: [LessonEntry], width: Int, outcome: (Run) -> Scoreboard.Outcome?
    ) -> String {
        var lines: [String] = []
        for (index, bug) in bugs.enumerated() {
            let number = String(index + 1).padding(toLength: 4, withPad: " ", startingAt: 0)
            lines.append(
                TerminalText.wrapped(
                    "\(number)\(bug.name) · on \(bug.scenario.name) · \(bug.measure.counts)", width: width))
        }
        let rows = bugs.enumerated().map { index, bug in
            TextTable.Row(
                key: String(index + 1),
                cells: steps.map { step in cell(bug, step: step, outcome: outcome, bold: false, mark: "←") })
        }
        let table = TextTable(
            keyHeader: "bug", columns: steps.map { TextTable.Column("step \($0.id)", alignedRight: false) }, rows: rows)
        return (lines + ["", table.rendered(width: width)]).joined(separator: "\n")
    }

    /// One bug on one step: ✗ or ✓ and the number (✗ in bold in Markdown),
    /// – when the run did not measure it, crash or error, "not run"; `mark`
    /// after the step that fixes the bug.
    private static func cell(
        _ bug: KnownBug, step: LessonEntry, outcome: (Run) -> Scoreboard.Outcome?, bold: Bool, mark: String
    ) -> String {
        let fixes = step.number == bug.fixedIn ? mark : ""
        switch outcome(run(for: bug, step: step.number)) {
        case .measured(let report)?:
            switch bug.verdict(report) {
            case .present(let value):
                let text = "✗ \(bug.measure.cell(value))"
                return (bold ? "**\(text)**" : text) + fixes
            case .gone(let value): return "✓ \(bug.measure.cell(value))" + fixes
            case .notMeasured: return "–" + fixes
            }
        case .failed(let why)?: return (why.hasPrefix("crashed") ? "crash" : "error") + fixes
        case nil: return "not run" + fixes
        }
    }

    /// Why each – of the matrix is one: "– icons whose URLs end alike share
    /// one file on disk, steps 01, 02: not measured: no file was written …",
    /// the steps with the same reason together.
    static func unmeasuredNotes(
        bugs: [KnownBug], steps: [LessonEntry], outcome: (Run) -> Scoreboard.Outcome?
    ) -> [String] {
        var notes: [String] = []
        for bug in bugs {
            var stepsByWhy: [(why: String, steps: [String])] = []
            for step in steps {
                guard case .measured(let report)? = outcome(run(for: bug, step: step.number)),
                    let why = bug.whyNotMeasured(report)
                else { continue }
                if let index = stepsByWhy.firstIndex(where: { $0.why == why }) {
                    stepsByWhy[index].steps.append(step.id)
                } else {
                    stepsByWhy.append((why, [step.id]))
                }
            }
            for (why, ids) in stepsByWhy {
                let which = (ids.count == 1 ? "step " : "steps ") + ids.joined(separator: ", ")
                notes.append("– \(bug.name), \(which): not measured: \(why).")
            }
        }
        return notes
    }
}
