import Foundation
import LessonChecks
import LessonKit

/// `lessons docs`: are the figures and tables the texts quote what their runs
/// give today? Each text lists its figures in a `<!-- figures … -->` comment
/// (`FigureList`) and may carry generated tables (`GeneratedTables`); every
/// run is a step's own executable, as `lessons run` plays it.
enum DocsCommand: LessonsCommand {
    static let name = "docs"
    static let abstract = "check the figures and tables the texts quote against fresh runs (--write: fix them)"
    struct Options {
        var write = false
    }

    static var flags: FlagTable<Options> {
        FlagTable(
            Options(),
            flags: [
                .switch("--write", \.write, help: "rewrite every stale figure and generated table from fresh runs")
            ])
    }

    static let about = """
        Reads Lessons/*.md, docs/*.md and README.md; plays each run they name once, each in its own process.
        Without --write, lists what is stale and exits 1 if anything is (swift test's FigureTests and
        DocsTablesTests check the same). Run `swift build` first.
        """

    static func run(_ options: Options) async throws -> Int32 {
        let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        let children = StepProcess.besideThisProgram()
        let texts = markdownFiles(in: root)
        // The commands' arguments, from their tables.
        let reference = root.appendingPathComponent(CommandReference.file)
        let text = try String(contentsOf: reference, encoding: .utf8)
        guard let fresh = CommandReference.regenerate(text) else {
            throw FigureError("\(CommandReference.file) has no \(CommandReference.begin) … \(CommandReference.end)")
        }
        var stale = 0
        if fresh != text {
            say("✗ \(CommandReference.file): the commands' arguments are stale")
            stale += 1
            if options.write { try fresh.write(to: reference, atomically: true, encoding: .utf8) }
        }
        // Figures.
        var figures: [Figure] = []
        for file in texts {
            figures += try FigureList.figures(
                in: try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8), file: file)
        }
        let mismatches = try await FigureList.check(figures, root: root) { run in
            try json(of: try report(run.step, run.arguments, children))
        }
        for mismatch in mismatches { say("✗ \(mismatch)") }
        stale += mismatches.count
        if options.write { try FigureList.write(mismatches, root: root) }
        // Generated tables.
        for file in texts {
            let url = root.appendingPathComponent(file)
            let text = try String(contentsOf: url, encoding: .utf8)
            guard text.contains("<!-- generated: ") else { continue }
            let fresh = try await GeneratedTables.regenerate(text) { step, scenario in
                try report(step, ["--scenario", scenario], children)
            }
            guard fresh != text else { continue }
            say("✗ \(file): a generated table is stale")
            stale += 1
            if options.write { try fresh.write(to: url, atomically: true, encoding: .utf8) }
        }
        say(
            stale == 0
                ? "Every figure (\(figures.count)) and table is what its run gives."
                : options.write ? "Rewrote \(stale) stale figures and tables." : "\(stale) stale: lessons docs --write")
        return stale == 0 || options.write ? 0 : 1
    }

    static func markdownFiles(in root: URL) -> [String] {
        let folders = ["Lessons", "docs"]
        return ["README.md"]
            + folders.flatMap { folder in
                ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path))
                    ?? []).filter { $0.hasSuffix(".md") }.sorted().map { "\(folder)/\($0)" }
            }
    }

    static func report(_ step: Int, _ arguments: [String], _ children: StepProcess) throws -> Report {
        guard let entry = LessonCatalog.entry(step) else { throw FigureError("there is no step \(step)") }
        switch children.runRetryingCrashes(entry, arguments: arguments).outcome {
        case .measured(let report): return report
        case .failed(let why): throw FigureError("lessons run \(step) \(arguments.joined(separator: " ")): \(why)")
        }
    }

    static func json(of report: Report) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any] else {
            throw FigureError("a report that is not a JSON object")
        }
        return object
    }
}
