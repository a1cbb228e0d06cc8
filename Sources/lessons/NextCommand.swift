import Foundation
import LessonChecks
import LessonKit

/// `lessons next`: one step further in what the learner is doing. On an
/// exercise (one started, or the workbench's code edited), the next exercise
/// once this one is solved, whatever step was played since: playing a step
/// never silently changes what `next` does. Before any exercise, the step
/// after the one last played (`lessons run N`, `lessons play N`).
enum NextCommand: LessonsCommand {
    static let name = "next"
    static let abstract = "the next exercise to start, or the next step to play, whichever you are on"
    static var flags: FlagTable<ExerciseOptions> {
        ExerciseOptions.table(number: nil, [.switch("--yes", \.yes, help: "start the next exercise without asking")])
    }

    static let about = """
        On an exercise (started with lessons exercise N, or the workbench's code edited), starts the next one once \
        this one is solved, as lessons exercise N does; a step played meanwhile is only named. Before any exercise, \
        plays the step after the one last played (lessons run N or lessons play N), or step \(LessonCatalog.all[0].number).
        """

    static func run(_ options: ExerciseOptions) throws -> Int32 {
        let workspace = try Workspace.find(root: options.root)
        let progress = try workspace.progress()
        if let current = exerciseInProgress(workspace, progress) {
            if let played = progress.lastStepPlayed, let after = step(after: played) {
                say(
                    "(You last played step \(played); to play step \(after.number): swift run lessons run"
                        + " \(after.number).)")
            }
            return try continueExercises(from: current, progress, workspace, yes: options.yes)
        }
        guard let played = progress.lastStepPlayed else {
            let first = LessonCatalog.all[0]
            say("Nothing played yet: step \(first.id), \(first.title) (swift run lessons run \(first.number)).")
            return try RunCommand.play(first, flags: [], workspace: workspace)
        }
        guard let next = step(after: played) else {
            say("Step \(played) was the last step. The exercises: swift run lessons exercise")
            return 0
        }
        say(
            "You last played step \(played); next: step \(next.id), \(next.title) (swift run lessons run"
                + " \(next.number)).")
        return try RunCommand.play(next, flags: [], workspace: workspace)
    }

    /// The exercise the learner is on: the one the workbench holds once they
    /// started one or edited its code; the workbench's committed starting code
    /// alone is no exercise begun.
    static func exerciseInProgress(_ workspace: Workspace, _ progress: ExerciseProgress) -> Int? {
        let held = workspace.workbenchState()
        if case .edited(let number, _, _) = held { return number }
        return progress.current.map { held.exercise ?? $0 }
    }

    static func step(after number: Int) -> LessonEntry? {
        LessonCatalog.all.first { $0.number > number }
    }

    /// The next exercise once `current` is solved; else what is left to do.
    static func continueExercises(from current: Int, _ progress: ExerciseProgress, _ workspace: Workspace, yes: Bool)
        throws -> Int32
    {
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
        return try WorkbenchChange.start(next, workspace, yes: yes, reset: false)
    }

    /// The first exercise after `current` not solved yet, else the first one
    /// before it; nil when every other one is solved.
    static func exercise(after current: Int, _ progress: ExerciseProgress) -> Exercise? {
        let later = ExerciseCatalog.all.filter { $0.number > current && !progress.solved.contains($0.number) }
        return later.first ?? ExerciseCatalog.all.first { !progress.solved.contains($0.number) && $0.number != current }
    }
}
