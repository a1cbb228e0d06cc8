import Foundation
import LessonChecks
import LessonKit

/// `lessons next`: one step further, wherever the learner is: the step after
/// the one last played (`lessons run N`), or the exercise after the one the
/// workbench holds, once it is solved.
enum NextCommand: LessonsCommand {
    static let name = "next"
    static let abstract = "the next step to play, or the next exercise to start, whichever you are on"
    static let usage = """
        usage: lessons next [--yes] [--root DIR]
          --yes       start the next exercise without asking
        \(ExerciseOptions.rootHelp)
        After lessons run N, plays step N+1. On an exercise (the one the workbench holds), starts the next one \
        once this one is solved, as lessons exercise N does. With neither, plays step 1.
        """

    static func parse(_ arguments: [String]) throws(UsageError) -> ExerciseOptions? {
        let options = try ExerciseOptions.parse(arguments, flags: ["--yes"])
        if let number = options?.number { throw UsageError("unexpected argument '\(number)'") }
        return options
    }

    static func run(_ options: ExerciseOptions) throws -> Int32 {
        let workspace = try Workspace.find(root: options.root)
        let progress = try workspace.progress()
        if let step = progress.lastStepPlayed {
            guard let next = LessonCatalog.all.first(where: { $0.number > step }) else {
                say("Step \(step) was the last step. The exercises: swift run lessons exercise")
                return 0
            }
            say(
                "You last played step \(step); next: step \(next.id), \(next.title) (swift run lessons run \(next.number))."
            )
            return try RunCommand.play(next, flags: [], workspace: workspace)
        }
        guard let current = workspace.workbenchState().exercise ?? progress.current else {
            let first = LessonCatalog.all[0]
            say("Nothing played yet: step \(first.id), \(first.title) (swift run lessons run \(first.number)).")
            return try RunCommand.play(first, flags: [], workspace: workspace)
        }
        let next = exercise(after: current, progress)
        guard progress.solved.contains(current) else {
            say(
                "Exercise \(current) is not solved yet: swift run lessons check (or lessons watch); stuck: swift run"
                    + " lessons hint."
                    + (next.map { " To move on anyway: swift run lessons exercise \($0.number)" } ?? ""))
            return 1
        }
        guard let next else {
            say(
                "Every exercise is solved (\(progress.summary)). Compare yours with the steps: swift run lessons solution N"
            )
            return 0
        }
        say("Exercise \(current) is solved; next: exercise \(next.number), \(next.entry.title).\n")
        return try WorkbenchChange.start(next, workspace, yes: options.yes, reset: false)
    }

    /// The first exercise after `current` not solved yet, else the first one
    /// before it; nil when every other one is solved.
    static func exercise(after current: Int, _ progress: ExerciseProgress) -> Exercise? {
        let later = ExerciseCatalog.all.filter { $0.number > current && !progress.solved.contains($0.number) }
        return later.first ?? ExerciseCatalog.all.first { !progress.solved.contains($0.number) && $0.number != current }
    }
}
