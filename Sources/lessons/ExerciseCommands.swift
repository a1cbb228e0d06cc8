import Foundation
import LessonChecks
import LessonKit

/// `lessons exercise | check | hint | reset | solution`: fix each step's bug
/// yourself in `Sources/Workbench/`, and have it checked by the step's own tests.
enum ExerciseCommands {
    static let usage = """
        usage: lessons exercise              the exercises, and how far you are
               lessons exercise N [--yes]    put exercise N's starting code in Sources/Workbench (a backup is kept)
               lessons check [N]             build the workbench and check it (N: the current exercise)
               lessons hint N                what each bug is, why, and what to try
               lessons reset [N] [--yes]     put exercise N's starting code back (a backup is kept)
               lessons solution [N] [--force]   the step's own fix, and your code against it (after the check passed)
        Every command also takes --root DIR: the package folder (default: the current folder, or the one lessons was built in).
        """

    static func run(_ command: String, _ arguments: [String]) -> Int32 {
        do {
            var flags = try Flags(arguments)
            let workspace = try Workspace.find(root: flags.take(value: "--root"))
            switch command {
            case "exercise":
                let yes = flags.take("--yes")
                guard let number = try flags.number() else {
                    try flags.done()
                    return list(workspace)
                }
                try flags.done()
                return try start(try exercise(number), workspace, yes: yes, reset: false)
            case "reset":
                let yes = flags.take("--yes")
                let number = try flags.number() ?? workspace.currentExercise()
                try flags.done()
                return try start(try exercise(number), workspace, yes: yes, reset: true)
            case "check":
                let number = try flags.number() ?? workspace.currentExercise()
                try flags.done()
                return try check(try exercise(number), workspace)
            case "hint":
                guard let number = try flags.number() else { throw UsageError("hint needs an exercise number") }
                try flags.done()
                return hint(try exercise(number))
            case "solution":
                let force = flags.take("--force")
                let number = try flags.number() ?? workspace.currentExercise()
                try flags.done()
                return try solution(try exercise(number), workspace, force: force)
            default:
                throw UsageError("unknown command '\(command)'")
            }
        } catch let error as UsageError {
            printError("lessons \(command): \(error)\n\(usage)")
            return 2
        } catch {
            printError("lessons \(command): \(error)")
            return 1
        }
    }

    static func exercise(_ number: Int) throws(UsageError) -> Exercise {
        guard let exercise = ExerciseCatalog.exercise(number) else {
            throw UsageError("there is no exercise \(number); the exercises are \(ExerciseCatalog.numbers)")
        }
        return exercise
    }

    // MARK: - exercise (list)

    static func list(_ workspace: Workspace) -> Int32 {
        let progress = workspace.progress
        say("Exercises: fix each step's bug yourself, in Sources/Workbench/, and let the step's tests check it.\n")
        for exercise in ExerciseCatalog.all {
            let mark = progress.solved.contains(exercise.number) ? "✓" : progress.current == exercise.number ? "→" : " "
            let bugs = exercise.bugs.filter { !$0.isSafeguard }.map(\.name).joined(separator: "; ")
            say("\(mark) \(exercise.number)  \(exercise.entry.title): \(bugs)")
        }
        say("\n\(progress.summary) · start: swift run lessons exercise \(progress.next ?? 2)")
        return 0
    }

    // MARK: - exercise N, reset N

    static func start(_ exercise: Exercise, _ workspace: Workspace, yes: Bool, reset: Bool) throws -> Int32 {
        let now = workspace.workbenchState()
        let what: String
        switch now {
        case .untouched(let held) where held == exercise.number:
            say("The workbench already holds exercise \(held)'s starting code, untouched.\n")
            try workspace.start(exercise.number)
            printTask(exercise, workspace)
            return 0
        case .untouched(let held): what = "exercise \(held)'s starting code, untouched"
        case .edited(let held, let files):
            what = "your code of exercise \(held) (changed: \(files.joined(separator: ", ")))"
        case .unknown: what = "code that no exercise wrote"
        case .empty: what = "nothing"
        }
        let needsBackup = now.needsBackup
        let backup = workspace.backupFolder(for: now)
        say(
            "This puts exercise \(exercise.number)'s starting code (\(exercise.startFolder)) \(reset ? "back " : "")in Sources/Workbench/.\n"
                + "It now holds \(what)."
                + (needsBackup ? "\nA copy of it goes to \(workspace.relative(backup))." : ""))
        guard yes || confirm("Go on? [y/N] ") else {
            say("Nothing changed.")
            return 1
        }
        if needsBackup {
            try workspace.backUpWorkbench(to: backup)
            say("Backed up to \(workspace.relative(backup)).")
        }
        try workspace.install(exercise)
        try workspace.start(exercise.number)
        say("")
        printTask(exercise, workspace)
        return 0
    }

    static func printTask(_ exercise: Exercise, _ workspace: Workspace) {
        let entry = exercise.entry
        let fixes = exercise.bugs.filter { !$0.isSafeguard }
        let keeps = exercise.bugs.filter(\.isSafeguard)
        var lines = [
            "Exercise \(exercise.number) · \(entry.title)",
            "Sources/Workbench/ holds the code before step \(exercise.number)'s fix (\(exercise.startFolder)). Fix:",
        ]
        for (index, bug) in fixes.enumerated() { lines.append("  \(index + 1). \(bug.name)") }
        for bug in keeps { lines.append("  and keep this right: \(bug.name)") }
        lines += [
            "",
            "Watch it:     \(exercise.watchCommand)    (\(exercise.watchSays))",
            "Read:         \(entry.text) (its first section is the problem)",
            "Check it:     swift run lessons check",
            "Stuck:        swift run lessons hint \(exercise.number)",
            "Start over:   swift run lessons reset \(exercise.number)",
            "",
            workspace.progress.summary,
        ]
        say(lines.joined(separator: "\n"))
    }

    // MARK: - check

    /// How many times a workbench that crashes is played again: a data race
    /// (step 4's dictionary) crashes some runs, not all.
    static let attempts = 3

    static func check(_ exercise: Exercise, _ workspace: Workspace) throws -> Int32 {
        if let held = workspace.workbenchState().exercise, held != exercise.number {
            say("Note: the workbench holds exercise \(held)'s code; checking it against exercise \(exercise.number).")
        }
        say("Building the workbench: swift build --product Workbench")
        let build = try Shell.run(["swift", "build", "--product", "Workbench"], in: workspace.root)
        guard build.status == 0 else {
            say("\nThe workbench does not compile:\n")
            say(Shell.compilerErrors(build.output, root: workspace.root))
            say("\nFix it and run `swift run lessons check` again (or start over: swift run lessons reset).")
            return 1
        }
        let binPath = try Shell.run(["swift", "build", "--show-bin-path"], in: workspace.root)
        let workbench = URL(fileURLWithPath: binPath.output.trimmingCharacters(in: .whitespacesAndNewlines))
            .appendingPathComponent("Workbench")
        var status: Int32 = 1
        for attempt in 1...attempts {
            let run = try Shell.runShowingOutput(workbench, ["--check", "\(exercise.number)"], in: workspace.root)
            if let signal = run.signal {
                say(
                    "\n✗ The workbench crashed (signal \(signal)\(Shell.signalName(signal))) while playing your code"
                        + (run.crash.map { ": \($0)" } ?? "") + ".")
                // Exercise 5 starts from step 4's racy cache; exercise 4's solution is that cache.
                let racy = ImageListChecks.racyBefore
                if racy.contains(exercise.number) || racy.contains(exercise.number + 1) {
                    say(
                        "If that line reads or writes a dictionary that download threads write too, it is the data"
                            + " race step 5 fixes: two threads at once crash some runs, not all.")
                }
                say(
                    attempt < attempts
                        ? "Playing it again (run \(attempt + 1) of \(attempts))…\n"
                        : "All \(attempts) runs crashed: a crash counts as not fixed.")
                continue
            }
            status = run.status
            break
        }
        if exercise.checksRaces && status != 2 {
            let race = try raceCheck(exercise, workspace)
            say("\n" + [race].renderedBugs)
            // The workbench's own verdict came before the race check: add to it only what the race changes.
            if status == 0 {
                say(
                    race.passed
                        ? "\nExercise \(exercise.number) solved: every bug fixed, the data race too."
                        : "\nExercise \(exercise.number) not solved yet: every other bug is fixed, the data race is not."
                            + " More help: swift run lessons hint \(exercise.number)")
            }
            if !race.passed { status = 1 }
        }
        var progress = workspace.progress
        if status == 0 {
            progress.solved.insert(exercise.number)
            try workspace.save(progress)
            say("\n\(progress.summary).")
            say("Compare with the step's own fix: swift run lessons solution \(exercise.number)")
            if let next = progress.next { say("Next: swift run lessons exercise \(next)") }
            return 0
        }
        say("\n\(progress.summary).")
        return status == 2 ? 2 : 1
    }

    /// Where the Thread Sanitizer build goes (the CI's TSan leg uses it too).
    static let sanitizerFlags = ["--sanitize=thread", "--scratch-path", ".build-tsan"]

    /// Builds the workbench with Thread Sanitizer, plays the scenario where
    /// downloads end together, and judges what TSan wrote.
    static func raceCheck(_ exercise: Exercise, _ workspace: Workspace) throws -> CheckResult {
        let build = ["swift", "build", "--product", "Workbench"] + sanitizerFlags
        say("\nThe data race: building the workbench with Thread Sanitizer (the first time takes a minute or so):")
        say(build.joined(separator: " "))
        let built = try Shell.run(build, in: workspace.root)
        guard built.status == 0 else {
            say(Shell.compilerErrors(built.output, root: workspace.root))
            return RaceCheck.bug.result(passed: false, measured: "the Thread Sanitizer build failed")
        }
        let binPath = try Shell.run(["swift", "build", "--show-bin-path"] + sanitizerFlags, in: workspace.root)
        let workbench = URL(fileURLWithPath: binPath.output.trimmingCharacters(in: .whitespacesAndNewlines))
            .appendingPathComponent("Workbench")
        var verdict = RaceCheck.bug.result(passed: true, measured: "")
        for attempt in 1...RaceCheck.runs {
            say("playing (\(attempt) of \(RaceCheck.runs)): Workbench " + RaceCheck.arguments.joined(separator: " "))
            let run = try Shell.runCollectingErrors(workbench, RaceCheck.arguments, in: workspace.root)
            guard run.signal != nil || run.status == 0 || run.status == RaceCheck.reportedStatus else {
                return RaceCheck.bug.result(
                    passed: false, measured: "the run exited with status \(run.status): \(run.errors.suffix(300))")
            }
            verdict = RaceCheck.judge(errors: run.errors, crashed: run.signal != nil)
            if !verdict.passed { return verdict }
        }
        let (busy, load) = RaceCheck.machineWasBusy()
        if busy {
            say(
                "Note: the machine was busy (load \(String(format: "%.1f", load)) on "
                    + "\(ProcessInfo.processInfo.activeProcessorCount) cores). Thread Sanitizer sees a race only "
                    + "when the threads really run at once, so a clean run on a busy machine proves less: check again "
                    + "when it is idle.")
        }
        return verdict
    }

    // MARK: - hint

    static func hint(_ exercise: Exercise) -> Int32 {
        let entry = exercise.entry
        var lines = ["Exercise \(exercise.number) · \(entry.title) — read beside it: \(entry.text)", ""]
        var number = 0
        for bug in exercise.bugs {
            if !bug.isSafeguard { number += 1 }
            lines.append((bug.isSafeguard ? "Keep right: " : "\(number). ") + bug.name)
            lines += wrap("Why: " + bug.why, indent: "   ")
            lines += wrap("Try: " + bug.hint, indent: "   ")
            lines += wrap("Fixed means: " + bug.expected, indent: "   ")
            lines.append("")
        }
        lines.append("Watch it: \(exercise.watchCommand) · check it: swift run lessons check \(exercise.number)")
        say(lines.joined(separator: "\n"))
        return 0
    }

    /// `text` in lines of at most `width` columns, the first after `indent`,
    /// the others indented a little further.
    static func wrap(_ text: String, indent: String, width: Int = 110) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            let prefix = lines.isEmpty ? indent : indent + "     "
            if !line.isEmpty && prefix.count + line.count + 1 + word.count > width {
                lines.append(prefix + line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append((lines.isEmpty ? indent : indent + "     ") + line)
        return lines
    }

    // MARK: - solution

    static func solution(_ exercise: Exercise, _ workspace: Workspace, force: Bool) throws -> Int32 {
        guard force || workspace.progress.solved.contains(exercise.number) else {
            say(
                "Exercise \(exercise.number) is not solved yet (swift run lessons check \(exercise.number)).\n"
                    + "To look anyway: swift run lessons solution \(exercise.number) --force")
            return 1
        }
        let start = workspace.root.appendingPathComponent(exercise.startFolder)
        let step = workspace.root.appendingPathComponent(exercise.solutionFolder)
        let names = try workspace.exerciseFiles(exercise)
        say("Step \(exercise.number)'s own fix: from \(exercise.startFolder) to \(exercise.solutionFolder)\n")
        say(try Shell.diff(names, from: start, to: step, root: workspace.root))
        if workspace.workbenchState().exercise == exercise.number {
            say("\nYour workbench against the step (what the step does that your code does not):\n")
            let yours = try Shell.diff(names, from: workspace.workbench, to: step, root: workspace.root)
            say(yours.isEmpty ? "(no difference)" : yours)
        }
        return 0
    }

    // MARK: - small things

    /// Everything goes out unbuffered, so a question is never printed before
    /// what it is about.
    static func say(_ text: String = "") {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func confirm(_ question: String) -> Bool {
        FileHandle.standardOutput.write(Data(question.utf8))
        guard let answer = readLine() else {
            say("\n(no answer on standard input; pass --yes to go on without asking)")
            return false
        }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

/// The flags of one command, taken one by one; what is left over is an error.
struct Flags {
    private var arguments: [String]

    init(_ arguments: [String]) throws(UsageError) {
        self.arguments = arguments
    }

    mutating func take(_ flag: String) -> Bool {
        guard let index = arguments.firstIndex(of: flag) else { return false }
        arguments.remove(at: index)
        return true
    }

    mutating func take(value flag: String) throws(UsageError) -> String? {
        guard let index = arguments.firstIndex(of: flag) else { return nil }
        guard index + 1 < arguments.count else { throw UsageError("\(flag) needs a value") }
        let value = arguments[index + 1]
        arguments.removeSubrange(index...index + 1)
        return value
    }

    /// The exercise number, if one was given.
    mutating func number() throws(UsageError) -> Int? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        guard let number = Int(first) else { throw UsageError("'\(first)' is not an exercise number") }
        arguments.removeFirst()
        return number
    }

    func done() throws(UsageError) {
        if let extra = arguments.first { throw UsageError("unexpected '\(extra)'") }
    }
}
