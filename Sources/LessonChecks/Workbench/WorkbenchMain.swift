import DependencyTour
import Foundation
import LessonKit
import LessonSupport
import LotteryMachineStory
import SlowNetwork

/// The whole of the workbench's `main.swift` (written by `lessons exercise N`).
///
/// `swift run --package-path Workbench Workbench [flags]` runs the learner's code the way step N's
/// executable runs the step's; `Workbench --check N` runs exercise N's checks
/// against it (an image list's scenarios each in a process of its own), prints
/// each bug fixed or not with the measured and expected numbers, and exits 0
/// only when all pass (`lessons check` reads that).
public enum WorkbenchMain {
    /// An image-list exercise: the learner's `AppsViewController`.
    public static func run(
        exercise number: Int, controller: any LessonController.Type,
        arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) async -> Int32 {
        StandardStreams.checkAtStart()
        return finish(await play(exercise: number, controller: controller, arguments: arguments))
    }

    private static func play(
        exercise number: Int, controller: any LessonController.Type, arguments: [String]
    ) async -> Int32 {
        switch command(arguments, workbench: number, kind: .imageList) {
        case .exit(let status):
            return status
        case .check(let exercise, let verdictFile):
            // Each scenario in a process of its own (this program, in its watch
            // mode): a crash in one costs that scenario's verdicts only. Ctrl-C
            // (or `lessons check` ending) ends them too (`command`), and their scratch folders go.
            guard let me = Bundle.main.executableURL else { return usage(exercise, error: "cannot find myself") }
            let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            let narrate: @Sendable (String) -> Void = { say("  " + $0) }
            let results = await ImageListChecks.check(
                exercise: exercise.number, narrate: narrate,
                code: LearnerCode.read(root.appendingPathComponent(WorkbenchLayout.code)),
                run: ImageListChecks.inChildProcesses(me, root: root, narrate: narrate))
            return verdict(results, exercise, file: verdictFile)
        case .watch(let exercise):
            let scenario = ImageListChecks.scenarios(exercise: exercise.number).first?.name
            let status = await LessonMain.run(
                exercise.entry.workbench(defaultScenario: scenario), controller: controller, arguments: arguments)
            if status == 0 && (arguments.contains("--help") || arguments.contains("-h")) {
                say("\ncheck it: swift run lessons check \(exercise.number)   (or: \(WorkbenchLayout.run) --check N)")
            }
            return status
        }
    }

    /// Exercise 8: the learner's `SoftwareUpdate`.
    public static func run(
        exercise number: Int, arguments: [String] = Array(CommandLine.arguments.dropFirst()),
        update make: DependencyChecks.Make
    ) async -> Int32 {
        StandardStreams.checkAtStart()
        return finish(
            await playStory(exercise: number, kind: .softwareUpdate, arguments: arguments, story: "software update") {
                await DependencyChecks.check(narrate: $0, make: make)
            })
    }

    /// Exercise 9: the learner's `LotteryViewController`.
    public static func run(
        exercise number: Int, machine: any ScreenController.Type,
        arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) async -> Int32 {
        StandardStreams.checkAtStart()
        return finish(
            await playStory(
                exercise: number, kind: .lotteryMachine, arguments: arguments, story: "lottery machine",
                check: { await LotteryChecks.check(narrate: $0, machine: machine) },
                // Any flag is the lottery story's: `--play` presses the button from the keyboard, `--script` plays steps.
                flagged: { exercise in
                    await LotteryMachineStory.run(
                        machine, workbench: exercise.entry.workbench(), command: WorkbenchLayout.run,
                        arguments: arguments)
                }))
    }

    /// Exercise 10: the learner's `ImageDownloadOperation`.
    public static func run(
        exercise number: Int, arguments: [String] = Array(CommandLine.arguments.dropFirst()),
        operation make: @escaping AsyncOperationChecks.Make
    ) async -> Int32 {
        StandardStreams.checkAtStart()
        return finish(
            await playStory(
                exercise: number, kind: .asyncOperation, arguments: arguments, story: "asynchronous operation"
            ) { narrate in
                let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
                return await AsyncOperationChecks.check(
                    narrate: narrate, code: LearnerCode.read(root.appendingPathComponent(WorkbenchLayout.code)),
                    make: make)
            })
    }

    /// An exercise whose code plays a story, not a table (8 to 10): `--check N` judges it; with no flag it
    /// plays as the check plays it, narrated; a flag goes to `flagged`, the story's own command line, if it
    /// has one (the lottery machine's keys), and is refused otherwise.
    private static func playStory(
        exercise number: Int, kind: Exercise.Kind, arguments: [String], story: String,
        check: (_ narrate: @escaping (String) -> Void) async -> [CheckResult],
        flagged: ((Exercise) async -> Int32)? = nil
    ) async -> Int32 {
        switch command(arguments, workbench: number, kind: kind) {
        case .exit(let status):
            return status
        case .check(let exercise, let verdictFile):
            return verdict(await check { say("  " + $0) }, exercise, file: verdictFile)
        case .watch(let exercise):
            guard arguments.isEmpty else {
                guard let flagged else { return usage(exercise, error: unplayable(arguments)) }
                return await flagged(exercise)
            }
            say("Your \(story), played as the check plays it: \(exercise.watchSays).")
            _ = await check { say("  " + $0) }
            say("\nCheck it: swift run lessons check \(exercise.number)")
            return 0
        }
    }

    enum Command {
        case watch(Exercise)
        /// The exercise to check against, and the file to keep the verdict in (`--verdict FILE`).
        case check(Exercise, verdictFile: String?)
        case exit(Int32)
    }

    /// `--check N` (with `--verdict FILE` at most), or anything else for the watch run.
    static func command(_ arguments: [String], workbench number: Int, kind: Exercise.Kind) -> Command {
        // Whatever the learner's code starts is this program's to end: on Ctrl-C, and in `finish`.
        ChildProcess.endChildrenOnSignals()
        guard let workbench = ExerciseCatalog.exercise(number), workbench.kind == kind else {
            printError("Workbench: main.swift names exercise \(number), which is not \(kind.rawValue) exercise")
            return .exit(2)
        }
        guard arguments.contains("--check") else {
            if arguments.contains("--help") && kind != .imageList { return .exit(usage(workbench, error: nil)) }
            return .watch(workbench)
        }
        let line: CheckLine?
        do {
            line = try CheckLine.table.parse(arguments)
        } catch {
            return .exit(usage(workbench, error: "\(error); \(CheckLine.rule)"))
        }
        guard let exercise = line?.exercise else { return .exit(usage(workbench, error: CheckLine.rule)) }
        guard exercise.kind == kind else {
            printError(
                "Workbench: exercise \(exercise.number) checks \(exercise.kind.rawValue), but the workbench holds "
                    + "exercise \(number)'s code (\(kind.rawValue)).\n"
                    + "Put exercise \(exercise.number)'s starting code there first: swift run lessons exercise "
                    + "\(exercise.number)")
            return .exit(2)
        }
        say("Checking the workbench against exercise \(exercise.number) (\(exercise.entry.title)):")
        return .check(exercise, verdictFile: line?.verdictFile)
    }

    /// `Workbench --check N [--verdict FILE]`, as `lessons check` runs it.
    struct CheckLine {
        var exercise: Exercise?
        var verdictFile: String?

        static var table: FlagTable<CheckLine> {
            FlagTable(
                CheckLine(),
                flags: [
                    .value("--check", exerciseNumber, \.exercise, help: "check it against exercise N"),
                    .value("--verdict", .text("FILE"), \.verdictFile, help: "keep the verdict in FILE, as JSON"),
                ])
        }

        static var rule: String {
            "--check takes one exercise number (\(ExerciseCatalog.numbers)), then --verdict FILE or no other flag"
        }

        static var exerciseNumber: FlagValue<Exercise> {
            FlagValue("N") { text, flag throws(UsageError) in
                guard let number = Int(text), let exercise = ExerciseCatalog.exercise(number) else {
                    throw UsageError("\(flag) takes an exercise number, not '\(text)'")
                }
                return exercise
            }
        }
    }

    /// Prints the verdict, and keeps it as JSON in `file` when one is given
    /// (`lessons check` reads it there); 0 when every check passed.
    static func verdict(_ results: [CheckResult], _ exercise: Exercise, file: String?) -> Int32 {
        say("\n" + said(results, exercise, forTheCheckCommand: file != nil))
        if let file {
            do {
                try JSONEncoder().encode(results).write(to: URL(fileURLWithPath: file), options: .atomic)
            } catch {
                printError("Workbench: cannot keep the verdict in \(file): \(SystemErrorText.describe(error))")
            }
        }
        return results.allPassed ? 0 : 1
    }

    /// The verdict as printed. Where `lessons check` judges more bugs with builds of its own after these results
    /// (`forTheCheckCommand`), it says the one summary, at the end, and this says what is still to check.
    static func said(_ results: [CheckResult], _ exercise: Exercise, forTheCheckCommand: Bool) -> String {
        let builds = [
            exercise.checksSwift6 ? "the compiler's verdict in the Swift 6 language mode" : nil,
            exercise.checksRaces ? "the data race with Thread Sanitizer" : nil,
        ].compactMap { $0 }.joined(separator: " and ")
        if builds.isEmpty { return results.rendered(exercise: exercise.number) }
        if forTheCheckCommand { return results.renderedBugs + "\n\nStill to check: \(builds)…" }
        return results.rendered(exercise: exercise.number, stillToCheck: builds + " (swift run lessons check)")
    }

    /// Why a workbench whose story has no keys takes no flag (`--play` among them).
    static func unplayable(_ arguments: [String]) -> String {
        let flags = "unknown flags: \(arguments.joined(separator: " "))"
        guard arguments.contains("--play") else { return flags }
        return flags + " (this exercise's code has no screen to drive by hand: \(WorkbenchLayout.run) plays it as "
            + "the check does, and says what it did at each step)"
    }

    static func usage(_ exercise: Exercise, error: String?) -> Int32 {
        let play = exercise.playCommand.map { "\n       \($0)\n         \(exercise.playSays)" } ?? ""
        let text = """
            usage: \(WorkbenchLayout.run)
                     play your code of exercise \(exercise.number) (\(exercise.watchSays))\(play)
                   \(WorkbenchLayout.run) --check N [--verdict FILE]
                     check it against exercise N (\(ExerciseCatalog.numbers)); --verdict FILE keeps the verdict
                     in FILE, as JSON (lessons check does)
            """
        if let error {
            printError("Workbench: \(error)\n\(text)")
            return 2
        }
        say(text)
        return 0
    }

    /// The status, or 1 if the verdict could not be written (`lessons check` reads it); what the learner's
    /// code started and left running is ended.
    private static func finish(_ status: Int32) -> Int32 {
        ChildProcess.endLeftovers()
        return StandardStreams.exitStatus(status, program: "Workbench")
    }

    static func say(_ line: String) {
        StandardStream.output.line(wrapping: line)
    }

    static func printError(_ message: String) {
        StandardStream.error.message(message)
    }
}

extension Exercise {
    /// How a learner drives their code by hand, keys and all: the image lists' table and the lottery machine's
    /// button; nil for an exercise whose code has no screen (the update, the operation), which its watch plays.
    public var playCommand: String? {
        switch kind {
        case .imageList, .lotteryMachine: WorkbenchLayout.run + " --play"
        case .softwareUpdate, .asyncOperation: nil
        }
    }

    /// What `playCommand`'s keys do.
    public var playSays: String {
        kind == .lotteryMachine
            ? "press the button yourself: space or Enter; q quits and says what was measured"
            : "scroll the table yourself: arrows, PgUp/PgDn, m a memory warning, o offline, r relaunch; q quits"
    }
}
