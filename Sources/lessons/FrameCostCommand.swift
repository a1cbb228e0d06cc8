import Foundation
import LessonKit
import SlowNetwork

/// `lessons framecost`: generated catalogs of growing length, each scrolled end
/// to end, and what a frame cost in each. The harness scales if the frame work
/// follows the rows on screen (always about 8), not the rows in the catalog.
enum FrameCostCommand: LessonsCommand {
    static let name = "framecost"
    static let abstract = "the harness's frame work against the catalog's length"
    struct Options {
        var rows = [60, 1000, 10_000]
        var step: Int?
    }

    static var flags: FlagTable<Options> {
        FlagTable(
            Options(),
            flags: [
                .value(
                    "--rows", rowCounts, \.rows,
                    help: "catalog lengths to try, comma-separated (default: 60,1000,10000)"),
                .value("--step", imageListStep, \.step, help: "the step to run (default: the last image-list step)"),
            ])
    }

    static let about =
        "Each catalog is generated, then scrolled from the first row to the last (scenario scroll-end-to-end)."

    /// `60,1000,10000`.
    static var rowCounts: FlagValue<[Int]> {
        FlagValue("LIST") { text, flag throws(UsageError) in
            let rows = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !rows.isEmpty, rows.allSatisfy({ $0.map { (1...1_000_000).contains($0) } ?? false }) else {
                throw UsageError("\(flag) takes row counts from 1 to 1000000 separated by commas, not '\(text)'")
            }
            return rows.compactMap { $0 }
        }
    }

    static var imageListStep: FlagValue<Int> {
        FlagValue("N") { text, flag throws(UsageError) in
            guard let number = Int(text), LessonCatalog.imageListSteps.contains(where: { $0.number == number }) else {
                let known = LessonCatalog.imageListSteps.map { String($0.number) }.joined(separator: ", ")
                throw UsageError("\(flag) takes an image-list step (\(known)), not '\(text)'")
            }
            return number
        }
    }

    static func run(_ options: Options) throws -> Int32 {
        guard let entry = options.step.flatMap(LessonCatalog.entry) ?? LessonCatalog.imageListSteps.last else {
            printError("lessons framecost: no image-list step in the catalog")
            return 1
        }
        guard let children = stepProcesses(for: [entry], command: name) else { return 1 }
        let folder = try ScratchFolder.make("OperationLessons-framecost")
        defer { ScratchFolder.remove(folder) }

        say(
            "Step \(entry.id) \(entry.title) · scenario scroll-end-to-end · what a frame cost, in wall-clock ms")
        say(FrameCost.header)
        let progress = ProgressLine(total: options.rows.count)
        var failed = false
        for rows in options.rows {
            let catalog = folder.appendingPathComponent("catalog-\(rows).plist")
            do {
                _ = try AppCatalog.generated(rows: rows, file: catalog)
            } catch {
                printError("lessons framecost: cannot write \(catalog.path): \(error.localizedDescription)")
                return 1
            }
            progress.started("\(rows) rows")
            let (outcome, _) = children.runRetryingCrashes(
                entry,
                arguments: ScoreboardCommand.flags("scroll-end-to-end", 1) + ["--catalog", catalog.path])
            progress.finished()
            progress.end()
            switch outcome {
            case .measured(let report): say(FrameCost.line(rows: rows, report))
            case .failed(let why):
                failed = true
                say("\(rows) rows: \(why)")
            }
        }
        return failed ? 1 : 0
    }
}

/// One line of the frame-cost table.
enum FrameCost {
    static let header = [
        ("rows", 8), ("frames", 8), ("frame work mean", 17), ("frame work max", 16), ("recording mean", 17),
        ("requests", 10),
    ].map { String(repeating: " ", count: max(0, $1 - $0.count)) + $0 }.joined()

    static func line(rows: Int, _ report: Report) -> String {
        String(
            format: "%8d %7d %14.3f ms %13.2f ms %14.3f ms %9d", rows, report.frames, report.frameWorkMeanWallMs,
            report.frameWorkMaxWallMs, report.frameRecordingMeanWallMs, report.requests)
    }
}
