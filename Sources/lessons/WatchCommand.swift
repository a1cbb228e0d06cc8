import Foundation
import LessonChecks
import LessonKit

/// `lessons watch [N]`: `lessons check` now, and again each time a file
/// under `Workbench/Sources/Workbench/` is saved, with what changed since the check
/// before. Ctrl-C ends it, and the build or workbench running with it
/// (`ChildProcess.endChildrenOnSignals`, in main.swift).
enum WatchCommand: LessonsCommand {
    static let name = "watch"
    static let abstract = "check the workbench now and on every save, and say which bugs went ✗ → ✓ (or back)"
    static let usage = """
        usage: lessons watch [N] [--max-checks N] [--root DIR]
          N               the exercise to check against (default: the one the workbench holds, at each check)
          --max-checks N  stop after N checks (default: until Ctrl-C)
        \(ExerciseOptions.rootHelp(column: 18))
        Each check is lessons check's. The files under \(WorkbenchLayout.code) are looked at twice a second; a check \
        starts half a second after the last save, and what was saved while one ran is checked after it.
        """

    /// How often the files are looked at, and how long they must stay as they are before a check starts.
    static let pollInterval = 0.5

    static func parse(_ arguments: [String]) throws(UsageError) -> ExerciseOptions? {
        try ExerciseOptions.parse(arguments, flags: ["--max-checks"])
    }

    static func run(_ options: ExerciseOptions) throws -> Int32 {
        let workspace = try Workspace.find(root: options.root)
        // Before the first check, so a number that names nothing is said at once.
        _ = try exercise(try options.number ?? workspace.currentExercise())
        var checked = FolderState(workspace.workbench)
        var count = 0
        let watch = WorkbenchWatch(
            waitForChange: {
                let saved = waitForSave(in: workspace.workbench, since: checked)
                say("\n── check \(count + 1) · saved: \(saved.joined(separator: ", ")) ──")
                return true
            },
            check: {
                count += 1
                checked = FolderState(workspace.workbench)
                let number = try options.number ?? workspace.currentExercise()
                return try CheckCommand.check(try exercise(number), workspace).results
            },
            say: { say("\n" + $0) }, maxChecks: options.maxChecks)
        let last = try watch.run()
        return last?.allPassed == true ? 0 : 1
    }

    /// Blocks until a file under `folder` differs from `state` and then stays
    /// as it is for a poll (an editor saving in several writes); the files that changed.
    static func waitForSave(in folder: URL, since state: FolderState) -> [String] {
        var seen = state
        while true {
            Thread.sleep(forTimeInterval: pollInterval)
            let now = FolderState(folder)
            if now == seen && now != state { return now.changes(since: state) }
            seen = now
        }
    }
}
