import Foundation
import LessonKit

/// `lessons timelines`: one timeline picture per step, into a folder you
/// name (`docs/timelines` only when asked: the pictures there are committed).
/// A step with a comparison (2–7 and 10) is drawn beside the step before it,
/// as `lessons compare N --timeline` draws them; step 1 plays its own
/// scenario; steps 8 and 9 play their own story, drawn as operations on the
/// threads that ran them.
enum TimelinesCommand: LessonsCommand {
    static let name = "timelines"
    static let abstract = "one timeline picture per step, into a folder (--out DIR; docs/timelines when asked)"
    struct Options {
        var out: String?
        var scenario: String?
        var seed: UInt64 = 1
    }

    static var flags: FlagTable<Options> {
        FlagTable(
            Options(),
            flags: [
                .value(
                    "--out", .text("DIR"), \.out,
                    help: "where to write the pictures (default: .operationlessons/timelines in the package folder, "
                        + "which git ignores; the committed ones: --out docs/timelines)"),
                .value(
                    "--scenario", .scenario, \.scenario,
                    help: "play this script on every image-list step (default: as lessons compare N plays it)"),
                .value("--seed", .seed, \.seed, help: "the seed for jitter and faults (default: 1)"),
            ])
    }

    static var about: String {
        """
        Writes DIR/NN-title.svg for each step, named after its lesson text; steps \
        \(LessonCatalog.phrase(LessonComparison.steps)) beside the
        step before them, as lessons compare N --timeline draws them. Run `swift build` first.
        """
    }

    /// `--out`, else `.operationlessons/timelines` in the package folder: never
    /// the committed pictures unless asked, so a run leaves the checkout clean.
    static func folder(_ options: Options) throws -> String {
        if let out = options.out { return out }
        let workspace = try Workspace.find(root: nil)
        return workspace.relative(workspace.stateFolder.appendingPathComponent("timelines"))
    }

    static func run(_ options: Options) async throws -> Int32 {
        let steps = LessonCatalog.all
        guard let children = stepProcesses(for: steps, command: name) else { return 1 }
        guard let (folder, out) = outputFolder(options) else { return 1 }
        say("Writing \(steps.count) timeline pictures to \(out)/.")
        var failures = 0
        let progress = ProgressLine(total: steps.count)
        for entry in steps {
            let drawn = try await draw(
                entry, to: folder.appendingPathComponent(pictureName(entry)), options, children: children,
                progress: progress)
            if !drawn { failures += 1 }
        }
        return failures == 0 ? 0 : 1
    }

    /// The folder the pictures go to, made if need be, and how to name it; nil once the error is said.
    private static func outputFolder(_ options: Options) -> (URL, String)? {
        let out: String
        do {
            out = try folder(options)
        } catch {
            printError("lessons timelines: \(error); name a folder: lessons timelines --out DIR")
            return nil
        }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: out, isDirectory: &isFolder), !isFolder.boolValue {
            printError("lessons timelines: \(out) is a file, not a folder; name a folder: lessons timelines --out DIR")
            return nil
        }
        let folder = URL(fileURLWithPath: out)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            printError("lessons timelines: cannot create \(out): \(SystemErrorText.describe(error))")
            return nil
        }
        return (folder, out)
    }

    /// Draws one step's picture into `file`: a step with a comparison as the pair, another on its own. False
    /// when its run failed (said already).
    private static func draw(
        _ entry: LessonEntry, to file: URL, _ options: Options, children: StepProcess, progress: ProgressLine
    ) async throws -> Bool {
        let scenario =
            entry.showsImageList
            ? options.scenario ?? LessonComparison.of(entry.number)?.scenario ?? entry.defaultScenario : nil
        let shown = pictureName(entry)
        progress.started("step \(entry.id) \(entry.title)" + (scenario.map { " · \($0)" } ?? ""))
        if let comparison = LessonComparison.of(entry.number) {
            var lesson = LessonOptions()
            (lesson.scenario, lesson.seed) = (options.scenario, options.seed)
            // Steps 3 and 4 crash now and then on their race: their picture is still worth a second run.
            let pair = try await CompareCommand.play(comparison, lesson: lesson, children: children, attempts: 5)
            progress.finished()
            progress.end()
            guard let pair else { return false }
            try OutputFile.write(TimelineSVG.render(pair: pair.before.timeline, pair.after.timeline), to: file.path)
            say("\(shown)  (steps \(comparison.before.number) and \(entry.number) on \(pair.after.report.scenario))")
            return true
        }
        let flags =
            scenario.map { ScoreboardCommand.flags($0, options.seed) }
            ?? ["--seed", String(options.seed)]
        let outcome = children.run(entry, arguments: flags + ["--timeline", file.path])
        progress.finished()
        progress.end()
        switch outcome {
        case .measured(let report) where scenario != nil:
            say(
                "\(shown)  (\(report.scenario): \(report.requests) requests, longest stall \(Int(report.maxMainStallMs)) ms)"
            )
        case .measured(let report):
            say("\(shown)  (\(report.scenario), \(Int(report.durationMs)) ms)")
        case .failed(let why):
            printError("step \(entry.id): \(why)")
            return false
        }
        return true
    }

    /// `Lessons/03-model-held-cache.md` → `03-model-held-cache.svg`.
    static func pictureName(_ entry: LessonEntry) -> String {
        let text = URL(fileURLWithPath: entry.text).deletingPathExtension().lastPathComponent
        return (text.isEmpty ? "\(entry.id)-\(entry.target)" : text) + ".svg"
    }
}
