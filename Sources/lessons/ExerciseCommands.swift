import Foundation
import LessonChecks
import LessonKit
import TableKit
import TerminalKit

/// `lessons exercise | reset | hint | solution` (and `check`, CheckCommand.swift):
/// fix each step's bug yourself in `Workbench/Sources/Workbench/`, and have it checked by
/// the step's own tests.
///
/// The workbench holds the learner's work, so it is treated as git treats a
/// working tree: nothing the learner wrote is ever thrown away. Whatever an
/// exercise did not put there, or put there and the learner changed, at any
/// depth, is copied to `.operationlessons/backups/` before it is replaced.

/// What the exercise commands take: `--root DIR`, maybe an exercise number,
/// and the flags of the command (`--yes`, `--force`, `--more`, `--max-checks N`).
struct ExerciseOptions {
    var root: String?
    var number: Int?
    var yes = false
    var force = false
    var more = false
    var keepMine = false
    var maxChecks: Int?

    /// The command line of an exercise command: `[N]` (its help `number`, none for a command that takes no
    /// exercise), its own `flags`, then `--root DIR`, which each takes.
    static func table(number: String?, _ flags: [Flag<ExerciseOptions>] = []) -> FlagTable<ExerciseOptions> {
        FlagTable(
            ExerciseOptions(),
            words: number.map { help in
                [
                    .optional("N", help: help) { options, word throws(UsageError) in
                        guard let number = Int(word) else { throw UsageError("'\(word)' is not an exercise number") }
                        _ = try exercise(number)
                        options.number = number
                    }
                ]
            } ?? [],
            flags: flags + [
                .value(
                    "--root", .text("DIR"), \.root,
                    help: "the package folder (default: the current folder, or the one lessons was built in)")
            ])
    }

    static var yes: Flag<ExerciseOptions> { .switch("--yes", \.yes, help: "do not ask") }

    /// The help of an exercise's `N` where it names the one to act on.
    static let numberHelp = "the exercise (default: the one the workbench holds)"
}

func exercise(_ number: Int) throws(UsageError) -> Exercise {
    guard let exercise = ExerciseCatalog.exercise(number) else {
        throw UsageError("there is no exercise \(number); the exercises are \(ExerciseCatalog.numbers)")
    }
    return exercise
}

// MARK: - exercise [N]

enum ExerciseCommand: LessonsCommand {
    static let name = "exercise"
    static let abstract = "the exercises and how far you are; with N: put exercise N's starting code in the workbench"
    static var flags: FlagTable<ExerciseOptions> {
        ExerciseOptions.table(
            number: "put exercise N's starting code in \(WorkbenchLayout.code), after asking; what it replaces that "
                + "the exercise did not put there is copied to .operationlessons/backups/ first",
            [
                ExerciseOptions.yes,
                .switch(
                    "--keep-mine", \.keepMine,
                    help: "keep your code of exercise N-1 and go on with it: exercise N's bugs are measured on it (a "
                        + "copy goes to .operationlessons/backups/ first); asked when N-1 was solved with code unlike "
                        + "the step's"),
            ])
    }

    static let about = "Without N: the exercises, ✓ solved, → the one the workbench holds now."

    static func run(_ options: ExerciseOptions) throws -> Int32 {
        let workspace = try Workspace.find(root: options.root)
        guard let number = options.number else { return try list(workspace) }
        return try WorkbenchChange.start(
            try exercise(number), workspace, yes: options.yes, reset: false, keepMine: options.keepMine)
    }

    static func list(_ workspace: Workspace) throws -> Int32 {
        let progress = try workspace.progress()
        // The workbench says what the learner is on, whatever was started last.
        let held = workspace.workbenchState().exercise
        say(
            "Exercises: fix each step's bug yourself, in \(WorkbenchLayout.code), and let the step's tests check it. A"
                + " check keeps every earlier fix: exercise N also plays the bugs of the steps before N.\n")
        for exercise in ExerciseCatalog.all {
            let mark = exercise.number == held ? "→" : progress.solved.contains(exercise.number) ? "✓" : " "
            let bugs = exercise.bugs.filter { !$0.isSafeguard }.map(\.name).joined(separator: "; ")
            let number = String(exercise.number).padding(toLength: 3, withPad: " ", startingAt: 0)
            say("\(mark) \(number) \(exercise.entry.title): \(bugs)")
        }
        say("\n✓ solved · → in the workbench now · \(progress.summary)")
        if let held {
            say(
                progress.solved.contains(held)
                    ? "On exercise \(held), solved. Next: swift run lessons next"
                    : "On exercise \(held): edit \(WorkbenchLayout.code), then swift run lessons check (or lessons watch)."
                        + " Its task again: swift run lessons task")
        } else {
            say("Start: swift run lessons exercise \(progress.next ?? ExerciseCatalog.all[0].number)")
        }
        return 0
    }
}

// MARK: - task [N]

enum TaskCommand: LessonsCommand {
    static let name = "task"
    static let abstract = "the task of the exercise you are on, again; nothing in the workbench changes"
    static var flags: FlagTable<ExerciseOptions> { ExerciseOptions.table(number: ExerciseOptions.numberHelp) }

    static func run(_ options: ExerciseOptions) throws -> Int32 {
        let workspace = try Workspace.find(root: options.root)
        WorkbenchChange.printTask(try exercise(try options.number ?? workspace.currentExercise()), workspace)
        return 0
    }
}

// MARK: - reset [N]

enum ResetCommand: LessonsCommand {
    static let name = "reset"
    static let abstract = "put the starting code of the exercise you are on back (your version is backed up)"
    static var flags: FlagTable<ExerciseOptions> {
        ExerciseOptions.table(number: ExerciseOptions.numberHelp, [ExerciseOptions.yes])
    }

    static func run(_ options: ExerciseOptions) throws -> Int32 {
        let workspace = try Workspace.find(root: options.root)
        let number = try options.number ?? workspace.currentExercise()
        return try WorkbenchChange.start(try exercise(number), workspace, yes: options.yes, reset: true)
    }
}

/// Going on to exercise N with the learner's own code of exercise N-1
/// (`exercise N --keep-mine`, or yes when asked): the workbench keeps their
/// files, copied to a backup first, and only its `main.swift` changes, to
/// name exercise N, whose checks then measure its bugs on their design.
enum CarriedCode {
    enum Offer {
        case carry(from: Int)
        case replace
        /// `--keep-mine` where it cannot be: the sentence why.
        case refused(String)
    }

    /// Whether to carry the workbench's code into `exercise`: with
    /// `--keep-mine`, or when asked (`ask`: not `--yes`), offered only when it
    /// holds the exercise before, solved, with code unlike the step's own.
    static func offer(
        for exercise: Exercise, _ state: Workspace.WorkbenchState, _ workspace: Workspace, keepMine: Bool, ask: Bool
    ) throws -> Offer {
        let held = state.exercise.flatMap(ExerciseCatalog.exercise)
        guard let held, carries(held, into: exercise) else {
            guard keepMine else { return .replace }
            return .refused(
                "--keep-mine goes on with your code of the exercise before, the same app one fix further: exercise"
                    + " \(exercise.number) starts from \(exercise.startFolder), and the workbench holds "
                    + "\(WorkbenchChange.describe(state)). Nothing changed.")
        }
        if keepMine { return .carry(from: held.number) }
        guard ask, try isWorthAsking(held, into: exercise, workspace) else { return .replace }
        return WorkbenchChange.confirm(question(held, into: exercise) + " (--keep-mine)? [y/N] ")
            ? .carry(from: held.number) : .replace
    }

    /// The exercise the workbench holds, when going on to `exercise` should ask whether to keep its code:
    /// solved, the exercise before, with code unlike the step's own.
    static func offered(for exercise: Exercise, _ workspace: Workspace) throws -> Exercise? {
        let held = workspace.workbenchState().exercise.flatMap(ExerciseCatalog.exercise)
        guard let held, carries(held, into: exercise), try isWorthAsking(held, into: exercise, workspace) else {
            return nil
        }
        return held
    }

    private static func isWorthAsking(_ held: Exercise, into exercise: Exercise, _ workspace: Workspace) throws -> Bool {
        try workspace.progress().solved.contains(held.number) && !isTheStepsOwn(exercise, workspace)
    }

    static func question(_ held: Exercise, into exercise: Exercise) -> String {
        "Your solution of exercise \(held.number) is unlike step \(held.number)'s own code. Go on to exercise"
            + " \(exercise.number) with your code, its bugs measured on it"
    }

    /// Exercise `next` starts from the code that solves `held`, an app of the same kind: the learner's solution
    /// can stand in for it.
    static func carries(_ held: Exercise, into next: Exercise) -> Bool {
        held.number + 1 == next.number && held.kind == next.kind && next.startFolder == held.solutionFolder
    }

    /// Whether the workbench's code is, file for file, the code `exercise` starts from.
    static func isTheStepsOwn(_ exercise: Exercise, _ workspace: Workspace) throws -> Bool {
        let start = workspace.root.appendingPathComponent(exercise.startFolder)
        let names = Set(workspace.codeFiles(of: exercise.startFolder))
        let mine = Set(workspace.swiftFiles(in: workspace.workbench).filter { $0 != "main.swift" })
        return names == mine
            && names.allSatisfy { name in
                (try? FileRead.regularFile(workspace.workbench.appendingPathComponent(name)))
                    == (try? FileRead.regularFile(start.appendingPathComponent(name)))
            }
    }

    /// Copies the workbench to a backup, then makes its `main.swift` name `exercise`, holding the lock.
    static func carry(_ from: Int, into exercise: Exercise, _ workspace: Workspace) throws -> Int32 {
        try workspace.locked {
            let state = workspace.workbenchState()
            guard state.exercise == from else {
                throw WorkspaceError("the workbench changed meanwhile: it now holds \(WorkbenchChange.describe(state))")
            }
            let backup = try workspace.claimBackupFolder(for: state)
            do {
                for (path, data) in workspace.snapshot(of: workspace.workbench) {
                    let file = backup.appendingPathComponent(path)
                    try FileManager.default.createDirectory(
                        at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                    if let data { try data.write(to: file) }
                }
                try Data(exercise.workbenchMain.utf8).write(
                    to: workspace.workbench.appendingPathComponent("main.swift"), options: .atomic)
            } catch {
                throw WorkspaceError(
                    "cannot carry your code into exercise \(exercise.number) (\(SystemErrorText.describe(error)));"
                        + " a copy of it is in \(workspace.relative(backup))")
            }
            try workspace.start(exercise.number)
            say(
                "Your code of exercise \(from) stays in \(WorkbenchLayout.code) (a copy:"
                    + " \(workspace.relative(backup))); its main.swift now names exercise \(exercise.number), whose"
                    + " bugs the check measures on it.\n")
        }
        WorkbenchChange.printTask(exercise, workspace)
        return 0
    }
}

/// Putting an exercise's starting code in the workbench, for `exercise N` and `reset`.
enum WorkbenchChange {
    static func start(_ exercise: Exercise, _ workspace: Workspace, yes: Bool, reset: Bool, keepMine: Bool = false)
        throws -> Int32
    {
        let asked = workspace.workbenchState()
        if !reset {
            switch try CarriedCode.offer(for: exercise, asked, workspace, keepMine: keepMine, ask: !yes) {
            case .carry(let from): return try CarriedCode.carry(from, into: exercise, workspace)
            case .refused(let why):
                say(why)
                return 1
            case .replace: break
            }
        }
        if case .untouched(let held) = asked, held == exercise.number,
            try workspace.locked({ try startIfHeld(exercise, workspace) })
        {
            say("The workbench already holds exercise \(held)'s starting code, untouched.\n")
            printTask(exercise, workspace)
            return 0
        }
        // Made now, so that the folder named here is the one the backup goes to.
        let link = workspace.workbenchLink()
        let promised = asked.needsBackup || link != nil ? try workspace.claimBackupFolder(for: asked) : nil
        say(
            "This puts exercise \(exercise.number)'s starting code (\(exercise.startFolder)) \(reset ? "back " : "")in"
                + " \(WorkbenchLayout.code).\nIt now holds \(describe(asked, link: link))."
                + (promised.map { "\nA copy of it goes to \(workspace.relative($0))." } ?? "")
                + (asked.exercise == exercise.number && !reset
                    ? "\n(To see the task again and change nothing: swift run lessons task)" : ""))
        guard yes || confirm("Go on? [y/N] ") else {
            promised.map(workspace.release(backupFolder:))
            say("Nothing changed.")
            return 1
        }
        do {
            try workspace.locked { try replace(with: exercise, workspace, promised: promised) }
        } catch {
            promised.map(workspace.release(backupFolder:))
            throw error
        }
        say("")
        printTask(exercise, workspace)
        return 0
    }

    /// Under the lock: if the workbench holds `exercise`'s starting code
    /// untouched, makes it the one the learner is on and returns true.
    private static func startIfHeld(_ exercise: Exercise, _ workspace: Workspace) throws -> Bool {
        guard case .untouched(let held) = workspace.workbenchState(), held == exercise.number else { return false }
        try workspace.start(exercise.number)
        return true
    }

    /// What the workbench holds, and where its folder is a symbolic link, that the link is kept and what it
    /// points to is not touched.
    static func describe(_ state: Workspace.WorkbenchState, link: String?) -> String {
        guard let link else { return describe(state) }
        return "a symbolic link to \(link), which holds \(describe(state)); the link itself is kept in the backup, and"
            + " nothing in \(link) is changed"
    }

    static func describe(_ state: Workspace.WorkbenchState) -> String {
        switch state {
        case .untouched(let held): return "exercise \(held)'s starting code, untouched"
        case .edited(let held, let changed, let added):
            let parts = [
                changed.isEmpty ? nil : "changed: " + changed.joined(separator: ", "),
                added.isEmpty ? nil : "not from the exercise: " + added.joined(separator: ", "),
            ]
            return "your code of exercise \(held) (\(parts.compactMap { $0 }.joined(separator: "; ")))"
        case .unknown: return "code that no exercise wrote"
        case .empty: return "nothing"
        case .missing: return "nothing: there is no \(WorkbenchLayout.code) folder; it will be made again"
        }
    }

    /// Swaps the exercise's starting code in, holding the lock. Decided now,
    /// after the answer: what the workbench holds now is what is kept (an
    /// editor's autosave, or the learner, may have saved while the question
    /// waited). The new code is made beside the workbench and each step is a
    /// rename, so a failure at any point leaves the workbench as it was.
    private static func replace(with exercise: Exercise, _ workspace: Workspace, promised: URL?) throws {
        // Another command may have put this very exercise there since.
        if promised == nil, try startIfHeld(exercise, workspace) { return }
        let now = workspace.workbenchState()
        let judged = workspace.snapshot(of: workspace.workbench)
        let backup =
            try promised
            ?? (now.needsBackup || workspace.workbenchLink() != nil ? workspace.claimBackupFolder(for: now) : nil)
        let staged = try workspace.stage(exercise)
        var old: URL?
        var info = stat()
        if lstat(workspace.workbench.path, &info) == 0 {
            let isFolder = info.st_mode & S_IFMT == S_IFDIR
            // A folder replaces the empty backup folder; anything else goes inside it.
            let aside =
                backup.map { isFolder ? $0 : $0.appendingPathComponent("Workbench") }
                ?? workspace.stateFolder.appendingPathComponent(
                    "old-workbench-\(getpid())-\(UUID().uuidString.prefix(8))")
            do {
                try workspace.move(workspace.workbench, to: aside)
            } catch {
                try? FileManager.default.removeItem(at: staged)
                if promised == nil { backup.map(workspace.release(backupFolder:)) }
                throw WorkspaceError("\(error); nothing was changed")
            }
            old = aside
        } else {
            try workspace.makeFolder(workspace.workbench.deletingLastPathComponent())
        }
        do {
            try workspace.move(staged, to: workspace.workbench)
        } catch {
            try? FileManager.default.removeItem(at: staged)
            if let old, (try? workspace.move(old, to: workspace.workbench)) == nil {
                throw WorkspaceError("\(error); what the workbench held is in \(workspace.relative(old))")
            }
            throw WorkspaceError("\(error); the workbench is as it was")
        }
        if let backup {
            say(
                "Backed up to \(workspace.relative(backup))"
                    + (promised == nil ? " (the workbench changed while the question waited)." : "."))
        } else if let old {
            // It held nothing of the learner's when judged; a save since then is kept, never removed.
            if workspace.snapshot(of: old) == judged {
                try? FileManager.default.removeItem(at: old)
            } else {
                let kept = try workspace.claimBackupFolder(for: now)
                try workspace.move(old, to: kept)
                say("Backed up to \(workspace.relative(kept)) (it was saved to as the exercise went in).")
            }
        }
        if case .missing = now { say("Made \(WorkbenchLayout.code) again.") }
        try workspace.start(exercise.number)
    }

    static func printTask(_ exercise: Exercise, _ workspace: Workspace) {
        let entry = exercise.entry
        let fixes = exercise.bugs.filter { !$0.isSafeguard }
        let keeps = exercise.bugs.filter(\.isSafeguard)
        var lines = [
            "Exercise \(exercise.number) · \(entry.title)",
            "\(WorkbenchLayout.code) holds the code before step \(exercise.number)'s fix (\(exercise.startFolder)). Fix:",
        ]
        for (index, bug) in fixes.enumerated() { lines.append("  \(index + 1). \(bug.name)") }
        // A check keeps every earlier fix: name them when they are few, count them when not.
        if keeps.count <= 3 {
            for bug in keeps { lines.append("  and keep this right: \(bug.name)") }
        } else {
            lines.append(
                "  and keep right the \(keeps.count) fixes before it (a check plays every earlier step's bugs;"
                    + " swift run lessons check names any it finds broken)")
        }
        lines += [
            "",
            "Watch it:     \(exercise.watchCommand)    (\(exercise.watchSays))",
        ] + (exercise.playCommand.map { ["Play it:      \($0)    (\(exercise.playSays))"] } ?? []) + [
            "Read:         \(exercise.readForTheProblem)",
            "Check it:     swift run lessons check, or on every save: swift run lessons watch",
        ]
        if exercise.checksSwift6 { lines.append("Swift 6 says: \(Swift6Check.command)") }
        lines += [
            "Stuck:        swift run lessons hint (a question first; --more for the API, then the code)",
            "Start over:   swift run lessons reset \(exercise.number)",
            "",
            ((try? workspace.progress()) ?? ExerciseProgress()).summary,
        ]
        say(lines.joined(separator: "\n"))
    }

    /// Asks on standard output, reads a line from standard input.
    static func confirm(_ question: String) -> Bool {
        StandardStream.output.write(question)
        guard let answer = readLine() else {
            say("\n(no answer on standard input; pass --yes to go on without asking)")
            return false
        }
        return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
    }
}

// MARK: - hint [N]

enum HintCommand: LessonsCommand {
    static let name = "hint"
    static let abstract = "a hint for your exercise: a question and where to look; --more: the API, then the code"
    static var flags: FlagTable<ExerciseOptions> {
        ExerciseOptions.table(
            number: ExerciseOptions.numberHelp,
            [
                .switch(
                    "--more", \.more,
                    help: "the next level: 1 a question and where to look, 2 why and the API to use, 3 the code")
            ])
    }

    static let about = """
        The level reached is kept for each exercise (.operationlessons/progress.json). After a check of the \
        exercise, the hint is about the bugs it found, and says what it saw.
        """

    static func run(_ options: ExerciseOptions) throws -> Int32 {
        let workspace = try Workspace.find(root: options.root)
        let exercise = try exercise(try options.number ?? workspace.currentExercise())
        var reached = 1
        var level = 1
        try workspace.updateProgress { progress in
            reached = progress.hintLevel(exercise.number)
            level = options.more ? min(reached + 1, Hints.levels) : reached
            progress.setHintLevel(level, for: exercise.number)
        }

        let lastCheck = workspace.lastCheck(of: exercise.number)
        let failed = lastCheck.map { check in check.results.filter { !$0.passed } }
        var lines = ["Exercise \(exercise.number) · \(exercise.entry.title) · hint \(level) of \(Hints.levels)"]
        if let lastCheck, let failed {
            let time = DateFormatter.localizedString(from: lastCheck.date, dateStyle: .none, timeStyle: .short)
            guard !failed.isEmpty else {
                say(lines[0])
                say(
                    "Your last check (\(time)) passed every bug: nothing to hint. The step's own fix: swift run lessons"
                        + " solution \(exercise.number)")
                return 0
            }
            lines.append("From your last check (\(time)): \(failed.stillThere).")
        }
        lines.append("")
        let shown =
            failed.map { failed in exercise.bugs.filter { bug in failed.contains { $0.bug == bug.name } } }
            ?? exercise.bugs.filter { !$0.isSafeguard }
        let code = LearnerCode.read(workspace.root.appendingPathComponent(WorkbenchLayout.code))
        var number = 0
        for bug in shown {
            number += 1
            let step = exercise.fixingStep(bug)
            lines += HintText.bug(
                bug, level: level, lastCheck: failed?.first { $0.bug == bug.name },
                number: (bug.isSafeguard ? "Keep right: " : "\(number). "), step: "step \(step)",
                fix: Exercise.codeFolders(ofStep: step, root: workspace.root),
                width: StandardStream.output.terminal.columns,
                code: code)
            lines.append("")
        }
        let keeps = exercise.bugs.filter(\.isSafeguard)
        if lastCheck == nil && !keeps.isEmpty {
            lines.append("And keep right: " + keeps.map(\.name).joined(separator: "; ") + ".")
            lines.append("")
        }
        if options.more && reached == Hints.levels {
            lines.append(
                "That was the last level. The step's whole fix: swift run lessons solution \(exercise.number) --force")
        } else if level < Hints.levels {
            lines.append("More: swift run lessons hint --more (\(level == 1 ? "why, and the API to use" : "the code"))")
        } else {
            lines.append("The step's whole fix: swift run lessons solution \(exercise.number) --force")
        }
        lines.append("Read beside it: \(exercise.entry.text)")
        lines.append("Check it: swift run lessons check, or on every save: swift run lessons watch")
        say(lines.joined(separator: "\n"))
        return 0
    }
}

// MARK: - solution [N]

enum SolutionCommand: LessonsCommand {
    static let name = "solution"
    static let abstract = "the step's own fix, and your code against it (after the check passed)"
    static var flags: FlagTable<ExerciseOptions> {
        ExerciseOptions.table(
            number: ExerciseOptions.numberHelp, [.switch("--force", \.force, help: "show it before the check passed")])
    }

    static let about = """
        On a terminal, output longer than the screen is paged by $PAGER (set empty: none), else by less -R.
        """

    static func run(_ options: ExerciseOptions) throws -> Int32 {
        let workspace = try Workspace.find(root: options.root)
        let exercise = try exercise(try options.number ?? workspace.currentExercise())
        guard try options.force || workspace.progress().solved.contains(exercise.number) else {
            say(
                "Exercise \(exercise.number) is not solved yet (swift run lessons check \(exercise.number)).\n"
                    + "To look anyway: swift run lessons solution \(exercise.number) --force")
            return 1
        }
        let start = workspace.root.appendingPathComponent(exercise.startFolder)
        let step = workspace.root.appendingPathComponent(exercise.solutionFolder)
        let names = try workspace.exerciseFiles(exercise)
        let width = StandardStream.output.terminal.columns
        var text = [
            TerminalText.wrapped(
                "Step \(exercise.number)'s own fix: from \(exercise.startFolder) to \(exercise.solutionFolder)\n",
                width: width),
            fitted(try diff(names, from: start, to: step, root: workspace.root)),
        ]
        if workspace.workbenchState().exercise == exercise.number {
            text.append(
                TerminalText.wrapped(
                    "\nYour workbench against the step (what the step does that your code does not; differences"
                        + " in comments alone left out):\n", width: width))
            let yours = try diff(names, from: workspace.workbench, to: step, root: workspace.root, codeOnly: true)
            text.append(yours.isEmpty ? "(no difference)" : fitted(yours))
        }
        Pager.show(text.joined(separator: "\n"))
        return 0
    }

    /// The lines a change may be made of alone for `diff` to leave it out
    /// with `codeOnly`: comments and blank lines.
    static let commentsAndBlankLines = ["-I", "^[[:space:]]*//", "-I", "^[[:space:]]*$"]

    /// A diff fitted to the terminal: a line too long for it is broken
    /// between words, and its continuation keeps the line's sign and
    /// indentation and is marked "↳", so it reads as the same line.
    static func fitted(_ diff: String) -> String {
        guard let width = StandardStream.output.terminal.columns else { return diff }
        return diff.split(separator: "\n", omittingEmptySubsequences: false).flatMap { line in
            let sign = line.prefix(1)
            let indentation = line.dropFirst().prefix { $0 == " " }
            return TerminalText.wrappedLine(line, width: width, continuation: sign + indentation + "  ↳ ")
        }.joined(separator: "\n")
    }

    /// `diff -u` of each named file between two folders (a missing file is
    /// empty), labelled with package-relative paths; `codeOnly`: without the
    /// changes that touch comments and blank lines alone.
    static func diff(_ names: [String], from old: URL, to new: URL, root: URL, codeOnly: Bool = false) throws
        -> String
    {
        let workspace = root.standardizedFileURL.path + "/"
        func label(_ url: URL) -> String {
            let path = url.standardizedFileURL.path
            return path.hasPrefix(workspace) ? String(path.dropFirst(workspace.count)) : path
        }
        func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }
        var parts: [String] = []
        for name in names {
            let oldFile = old.appendingPathComponent(name)
            let newFile = new.appendingPathComponent(name)
            // diff would wait for ever on a FIFO: such a file is named, never read.
            if let odd = [oldFile, newFile].first(where: { exists($0) && !FileRead.isRegularFile($0) }) {
                parts.append("\(label(odd)) is not a regular file (a FIFO or a device): not compared")
                continue
            }
            let ignoring = codeOnly ? commentsAndBlankLines : []
            var child = ChildProcess(
                command: ["diff", "-u"] + ignoring + [
                    "--label", exists(oldFile) ? label(oldFile) : "/dev/null", "--label",
                    exists(newFile) ? label(newFile) : "/dev/null", exists(oldFile) ? oldFile.path : "/dev/null",
                    exists(newFile) ? newFile.path : "/dev/null",
                ])
            child.directory = root
            let result = try child.run()
            guard result.exited, result.status <= 1 else {
                throw WorkspaceError("diff failed: \(result.errors)")
            }
            if !result.output.isEmpty { parts.append(result.output.trimmingCharacters(in: .newlines)) }
        }
        return parts.joined(separator: "\n")
    }
}
