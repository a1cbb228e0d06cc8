import Foundation
import LessonChecks
import LessonKit
import TerminalKit

/// `lessons check [N]`: builds the workbench, plays exercise N's checks in it
/// (`Workbench --check N`), and records the exercise solved when they pass.
enum CheckCommand: LessonsCommand {
    static let name = "check"
    static let abstract = "build the workbench and check it against exercise N (default: the one it holds)"
    static var flags: FlagTable<ExerciseOptions> {
        ExerciseOptions.table(number: "the exercise to check against (default: the one the workbench holds)")
    }

    static let about = """
        Builds the workbench (swift build --package-path Workbench), then runs Workbench --check N, which plays each \
        scenario in a process of its own: a crash costs that scenario's verdicts, and is explained. A run that goes \
        on past its scenario's time is stopped, and where it was stuck is shown. It plays a copy of the executable \
        its build made, and only a run that wrote a verdict on every bug counts: a run that ends early, or files \
        changed during the check, leave the bugs not measured. A check keeps every earlier fix: \
        exercise N also plays the bugs steps before N fixed. From exercise \(ImageListChecks.raceFixedIn) on, the \
        workbench is also built with Thread Sanitizer in your code (WORKBENCH_RACE_BUILD=1, beside the ordinary \
        build) and played \(RaceCheck.runs) times, looking for the data race step \(ImageListChecks.raceFixedIn) \
        fixes. Exercise \(LessonCatalog.phrase(ExerciseCatalog.all.filter(\.checksSwift6).map(\.number)))'s files are also \
        compiled one by one in the Swift 6 language mode (the mode WORKBENCH_SWIFT_MODE=6 builds in): their errors \
        are the verdict. \
        The verdict is kept in .operationlessons/last-check.json: lessons hint reads it.
        """

    static func run(_ options: ExerciseOptions) throws -> Int32 {
        // Before the workbench is built: its runs would be refused, each after a build, with no verdict.
        if ToolchainContract.refuses("lessons check") { return 1 }
        let workspace = try Workspace.find(root: options.root)
        return try check(try exercise(try options.number ?? workspace.currentExercise()), workspace).status
    }

    /// How many times a workbench that crashes is played again: a data race
    /// (step 4's dictionary) crashes some runs, not all.
    static let attempts = 3

    /// How a check ended: its exit status, and each bug's result when the
    /// checks ran to a verdict (not when the build failed, or every run crashed).
    struct Outcome {
        let status: Int32
        let results: [CheckResult]?
    }

    /// Checks the workbench against `exercise`, prints what it finds, records
    /// the exercise solved when every check passes, and keeps the verdict in
    /// `.operationlessons/last-check.json` for `hint` and `watch`.
    static func check(_ exercise: Exercise, _ workspace: Workspace) throws -> Outcome {
        workspace.forgetLastCheck()
        guard canBuild(exercise, workspace) else { return Outcome(status: 1, results: nil) }
        // The learner's code plays with full write access: what it removes is put back when the check ends.
        let sources = workspace.keepSources(checking: exercise)
        defer { sources.putBackRemoved() }
        // The race build compiles beside the ordinary one and the scenarios (two cores): it is waited for last.
        let raceBuild = exercise.checksRaces ? try RaceBuild.start(workspace) : nil
        defer { raceBuild?.stop() }
        if let note = WorkbenchDiagnostics.languageModeNote(ProcessInfo.processInfo.environment) { say(note) }
        // The files as the build reads them: a verdict is of these, or of none.
        let seen = WorkbenchSnapshot(package: workspace.workbenchPackage)
        say("Building the workbench: swift build --package-path \(WorkbenchLayout.package)")
        let products: URL
        switch try build(workspace, flags: []) {
        case .built(let built): products = built
        case .failed:
            say("\nFix it and run `swift run lessons check` again (or start over: swift run lessons reset).")
            return Outcome(status: 1, results: nil)
        case .failedInTheSuite, .cannotBuild: return Outcome(status: 1, results: nil)
        }
        let scratch = try ScratchFolder.make("check-verdict")
        defer { ScratchFolder.remove(scratch) }
        guard let product = try executableProduct(workspace),
            let workbench = playable(product, builtIn: products, copiedInto: scratch.appendingPathComponent("played"))
        else { return Outcome(status: 1, results: nil) }
        let verdictFile = scratch.appendingPathComponent("verdict.json")
        var tally = try played(exercise, workspace, workbench, verdictFile: verdictFile)
        try judgeWithOwnBuilds(&tally, exercise, workspace, raceBuild, product: product, scratch: scratch)
        notMeasuredIfChanged(&tally, workspace, since: seen)
        return try concluded(tally, exercise, workspace)
    }

    /// Where a check stands: its exit status, each bug's result once the checks ran to a verdict, and whether the
    /// summary is this command's to say (builds of its own judge more bugs, or the workbench gave no verdict of its
    /// own).
    struct Tally {
        var status: Int32 = 1
        var results: [CheckResult]?
        var saysTheCount: Bool
    }

    /// Whether the workbench is there to build; if not, said why.
    private static func canBuild(_ exercise: Exercise, _ workspace: Workspace) -> Bool {
        let state = workspace.workbenchState()
        if case .missing = state {
            say(
                "There is no \(WorkbenchLayout.code) folder. Put an exercise there: swift run lessons exercise "
                    + "\(exercise.number)")
            return false
        }
        if let held = state.exercise, held != exercise.number {
            say("Note: the workbench holds exercise \(held)'s code; checking it against exercise \(exercise.number).")
        }
        if let (path, kind) = workspace.entriesNoBuildCanRead().first {
            say(
                "\(path) is \(kind), not a source file: swift build would wait on it for ever. Remove it (rm \(path)),"
                    + " or start over: swift run lessons reset")
            return false
        }
        return true
    }

    /// Plays the exercise's checks in `workbench` (again after a crash, up to `attempts` runs) and reads the
    /// verdict it wrote.
    private static func played(
        _ exercise: Exercise, _ workspace: Workspace, _ workbench: URL, verdictFile: URL
    ) throws -> Tally {
        let stopped = Tally(status: 1, results: nil, saysTheCount: exercise.checksSwift6 || exercise.checksRaces)
        for attempt in 1...attempts {
            // A verdict is this run's, or none: never one an earlier run left.
            try? FileManager.default.removeItem(at: verdictFile)
            let watch = CheckWatch(exercise)
            var child = ChildProcess(
                workbench, ["--check", "\(exercise.number)", "--verdict", verdictFile.path])
            child.directory = workspace.root
            // Exercises 8–10 play their stories in this process: the same flags as a scenario child.
            child.environment = ChildProcess.sameFiguresEnvironment
            // The workbench writes to us, not to the terminal: it lays its verdict out for ours.
            if let columns = StandardStream.output.terminal.columns { child.environment["COLUMNS"] = String(columns) }
            // Made printable: exercises 8–10 play the learner's code in this child, and what it prints comes here.
            let shown = PrintableOutput()
            child.output = .stream { data in
                shown.write(data)
                watch.saw(data)
            }
            let run = try child.run(watchdog: watch.watchdog)
            shown.finish()
            if let ranFor = run.stoppedAfter {
                say("\n" + watch.stoppedMessage(after: ranFor, errors: run.errors))
                return stopped
            }
            if let signal = run.signal {
                say(
                    "\n✗ The workbench crashed (signal \(signal)\(WorkbenchDiagnostics.signalName(signal))) while playing"
                        + " your code:\n"
                        + CrashDiagnosis(errors: run.errors, signal: signal, root: workspace.root).summary)
                say(
                    attempt < attempts
                        ? "Playing it again (run \(attempt + 1) of \(attempts))…\n"
                        : "All \(attempts) runs crashed: a crash counts as not fixed.")
                continue
            }
            return verdict(of: run, exercise, verdictFile: verdictFile, saysTheCount: stopped.saysTheCount)
        }
        return stopped
    }

    /// The verdict a run that ended wrote, when it holds every bug's: else each bug not measured, and why.
    private static func verdict(
        of run: ChildProcess.Finished, _ exercise: Exercise, verdictFile: URL, saysTheCount: Bool
    ) -> Tally {
        if !run.errors.isEmpty { StandardStream.error.write(TerminalText.printableLines(run.errors)) }
        var tally = Tally(status: run.status, saysTheCount: saysTheCount)
        tally.results = (try? Data(contentsOf: verdictFile)).flatMap {
            try? JSONDecoder().decode([CheckResult].self, from: $0)
        }
        // Status 2 without a verdict is the workbench refusing its arguments, and it said why.
        if !(tally.status == 2 && tally.results == nil),
            let why = CheckEvidence.missing(in: tally.results, status: tally.status, exercise: exercise)
        {
            tally.results = CheckEvidence.unmeasured(
                exercise, because: why, hint: CheckEvidence.endedEarlyHint(exercise))
            say("\n" + (tally.results ?? []).renderedBugs)
            tally.status = 1
            tally.saysTheCount = true
        }
        return tally
    }

    /// The bugs only builds of this command's own judge (unless the workbench refused its arguments): the Swift 6
    /// compile and the race runs, each said, then read together and put into the workbench's verdict.
    private static func judgeWithOwnBuilds(
        _ tally: inout Tally, _ exercise: Exercise, _ workspace: Workspace, _ raceBuild: RaceBuild?, product: String,
        scratch: URL
    ) throws {
        let refused = tally.status == 2
        var swift6 = exercise.checksSwift6 && !refused ? try swift6Check(workspace) : nil
        if let swift6 {
            say("\n" + [swift6].renderedBugs)
            if !swift6.passed { tally.status = 1 }
        }
        let race =
            refused
            ? nil
            : try raceBuild.map {
                exercise.listed(race: try raceCheck(exercise, workspace, $0, product: product, scratch: scratch))
            }
        if let race {
            say("\n" + [race].renderedBugs)
            if !race.passed { tally.status = 1 }
        }
        if let compiled = swift6, let race {
            let code = LearnerCode.read(workspace.root.appendingPathComponent(WorkbenchLayout.code))
            let kept = Swift6Check.kept(compiled, by: race, code: code)
            if kept != compiled { say("\nThe compiler's verdict, read with the race run's:\n" + [kept].renderedBugs) }
            swift6 = kept
        }
        tally.results = tally.results.map { exercise.verdict(workbench: $0, swift6: swift6, race: race) }
    }

    /// A verdict of files that changed while they were built and played is of no one version of them: not measured.
    private static func notMeasuredIfChanged(
        _ tally: inout Tally, _ workspace: Workspace, since seen: WorkbenchSnapshot
    ) {
        let changed = WorkbenchSnapshot(package: workspace.workbenchPackage).changed(since: seen)
        guard !changed.isEmpty, let measured = tally.results else { return }
        let files = changed.map { WorkbenchLayout.package + "/" + $0 }.joined(separator: ", ")
        let why = "your files changed while the check built and played them (\(files))"
        say("\nNot measured: \(why): this verdict is of no one version of them. Check again once they are saved.")
        tally.results = measured.map { $0.unmeasured(because: why, hint: "Check again: swift run lessons check") }
        tally.status = 1
        tally.saysTheCount = true
    }

    /// The summary when it is this command's, the verdict kept for `hint` and `watch`, and the exercise recorded
    /// solved when every check passed.
    private static func concluded(_ tally: Tally, _ exercise: Exercise, _ workspace: Workspace) throws -> Outcome {
        if tally.saysTheCount, tally.status != 2, let results = tally.results {
            // The one summary, at the end: the workbench left it to this command, whose builds judge more bugs.
            say("\n" + results.summary(exercise: exercise.number))
        }
        if let results = tally.results {
            try workspace.save(LastCheck(exercise: exercise.number, date: Date(), results: results))
        }
        if tally.status == 0 {
            let progress = try workspace.updateProgress { $0.solved.insert(exercise.number) }
            say("\n\(progress.summary).")
            say("Compare with the step's own fix: swift run lessons solution \(exercise.number)")
            if progress.next != nil { say("Next: swift run lessons next") }
            return Outcome(status: 0, results: tally.results)
        }
        say("\n\(try workspace.progress().summary).")
        return Outcome(status: tally.status == 2 ? 2 : 1, results: tally.results)
    }

    /// The longest a build may take, like a scenario's limit: a cold Thread
    /// Sanitizer build of the workbench took 45 s with the machine's load at 9.
    static let buildLimit = Duration.seconds(15 * 60)

    /// How a build of the workbench ended.
    enum BuildOutcome {
        /// The folder of its products.
        case built(URL)
        /// Its errors shown: the learner's to fix, or no build was made (a missing manifest, a build stopped).
        case failed
        /// In the suite's own sources, twice: said (the sentence) to be the suite's bug, not the learner's.
        case failedInTheSuite(String)
        /// For no line of the learner's Swift (the manifest, a dependency, a folder not writable): said what to do.
        case cannotBuild
    }

    /// Builds the workbench's package (with `flags`): its products' folder, or what went wrong, shown with the
    /// compiler's errors, paths relative to the lessons' package.
    static func build(_ workspace: Workspace, flags: [String]) throws -> BuildOutcome {
        guard let build = buildCommand(workspace, flags: flags) else { return .cannotBuild }
        let run = { try build.run(watchdog: Watchdog(limit: buildLimit)) }
        return try built(workspace, flags: flags, try run(), again: run)
    }

    /// The `swift build` of the workbench's package with `flags`, or nil after saying that its manifest is missing.
    static func buildCommand(_ workspace: Workspace, flags: [String]) -> ChildProcess? {
        let manifest = workspace.workbenchPackage.appendingPathComponent("Package.swift")
        guard FileManager.default.fileExists(atPath: manifest.path) else {
            say(
                "\n\(workspace.relative(manifest)) is missing, so the workbench cannot be built; put it back: "
                    + "git checkout \(workspace.relative(manifest))")
            return nil
        }
        var build = ChildProcess(command: ["swift", "build", "--package-path", WorkbenchLayout.package] + flags)
        build.directory = workspace.root
        build.errors = .intoOutput
        // The mode every exercise is checked in, whatever the learner's shell says (`languageModeNote`).
        build.environment[WorkbenchLayout.swiftModeVariable] = "5"
        return build
    }

    /// How `first`, a build with `flags`, ended, what went wrong shown. A build whose every error is in the
    /// suite's own sources is planned afresh and made `again` once; failing so twice, it is the suite's bug,
    /// and said so: never one for the learner to fix.
    static func built(
        _ workspace: Workspace, flags: [String], _ first: ChildProcess.Finished,
        again: () throws -> ChildProcess.Finished
    ) throws -> BuildOutcome {
        var built = first
        if suitesOwnError(built, workspace) != nil {
            say("\nThe suite's own sources failed to build, none of your files: building once more…")
            forgetPlan(workspace, flags: flags)
            built = try again()
            if let error = suitesOwnError(built, workspace) {
                let sentence = WorkbenchDiagnostics.suiteFailedToBuild(firstError: error)
                say("\n" + sentence)
                return .failedInTheSuite(sentence)
            }
        }
        if let ranFor = built.stoppedAfter {
            say(
                "\nswift build was stopped after \(Int(ranFor.components.seconds)) s (a build gets"
                    + " \(Int(buildLimit.components.seconds / 60)) minutes); what it said last:\n"
                    + built.output.suffix(600))
            return .failed
        }
        guard built.exited, built.status == 0 else {
            // A build that cannot write its database crashes (SIGABRT): its cause is still what it said first.
            if let problem = WorkbenchDiagnostics.buildProblem(built.output, root: workspace.root) {
                say("\n" + problem)
                return .cannotBuild
            }
            say(built.exited ? "\nThe workbench does not compile:\n" : "\nThe build was stopped.\n")
            say(WorkbenchDiagnostics.compilerErrors(built.output, root: workspace.root))
            return .failed
        }
        return .built(products(workspace, flags: flags))
    }

    /// The executable the workbench's package makes, by name: the one its manifest declares (`Workbench`, or the
    /// name a learner gave it), `Workbench` when there are several; nil after saying why there is none to play.
    static func executableProduct(_ workspace: Workspace) throws -> String? {
        var describe = ChildProcess(
            command: ["swift", "package", "--package-path", WorkbenchLayout.package, "describe", "--type", "json"])
        describe.directory = workspace.root
        let described = try describe.run(watchdog: Watchdog(limit: buildLimit))
        let manifest = WorkbenchLayout.package + "/Package.swift"
        guard described.exited, described.status == 0,
            let names = CheckEvidence.executableProducts(describedAs: Data(described.output.utf8))
        else {
            say("\nCannot read what \(manifest) makes (swift package describe):\n" + described.errors.suffix(600))
            return nil
        }
        if names.count == 1 || names.contains(WorkbenchLayout.product) {
            return names.count == 1 ? names[0] : WorkbenchLayout.product
        }
        say(
            "\n\(manifest) makes "
                + (names.isEmpty
                    ? "no executable" : "\(names.count) executables and none is \(WorkbenchLayout.product): "
                        + names.joined(separator: ", "))
                + ", so the check has no program to play. Put it back as the exercise wrote it: swift run lessons "
                + "reset")
        return nil
    }

    /// The executable `product` from a build's `products` folder, copied into `folder` (made afresh) beside links
    /// to its resources: the check plays the copy, so a build made meanwhile (the learner's own `swift build`)
    /// cannot change what a scenario plays. Nil after saying why.
    static func playable(_ product: String, builtIn products: URL, copiedInto folder: URL) -> URL? {
        let manager = FileManager.default
        let built = products.appendingPathComponent(product)
        let copy = folder.appendingPathComponent(product)
        do {
            try? manager.removeItem(at: folder)
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            try manager.copyItem(at: built, to: copy)
            for resources in try manager.contentsOfDirectory(atPath: products.path) where resources.hasSuffix(".resources") {
                try manager.createSymbolicLink(
                    at: folder.appendingPathComponent(resources),
                    withDestinationURL: products.appendingPathComponent(resources))
            }
        } catch {
            say("\nCannot copy the workbench's build (\(built.path)) to play it: \(SystemErrorText.describe(error))")
            return nil
        }
        return copy
    }

    /// Removes a build's plan, so the next build lists every module's files again. SwiftPM plans the
    /// workbench's build afresh only when the workbench's own folder or manifest changes: a file added to one
    /// of the suite's modules since stays out of it ("cannot find 'callingTheApp' in scope" in the suite's
    /// sources, build after build, until the plan goes).
    private static func forgetPlan(_ workspace: Workspace, flags: [String]) {
        try? FileManager.default.removeItem(
            at: products(workspace, flags: flags).appendingPathComponent("description.json"))
    }

    /// The first error of a failed build when every error is in the suite's sources, none in the learner's.
    private static func suitesOwnError(_ built: ChildProcess.Finished, _ workspace: Workspace) -> String? {
        guard built.exited, built.status != 0 else { return nil }
        return WorkbenchDiagnostics.suitesOwnError(built.output, root: workspace.root)
    }

    /// Where a build with `flags` put the workbench: after every build SwiftPM links `debug` in its scratch
    /// folder to the debug products of this machine's triple. Asking `swift build --show-bin-path` instead
    /// loads both manifests again, a second or more on every check.
    static func products(_ workspace: Workspace, flags: [String]) -> URL {
        let scratch =
            zip(flags, flags.dropFirst()).first { $0.0 == "--scratch-path" }?.1 ?? WorkbenchLayout.package + "/.build"
        return workspace.root.appendingPathComponent(scratch).appendingPathComponent("debug")
    }

    /// Compiles the learner's files again in the Swift 6 language mode, against the libraries the ordinary build
    /// made, and judges what the compiler said of them.
    static func swift6Check(_ workspace: Workspace) throws -> CheckResult {
        say("\nThe compiler's verdict: each of your files compiled in the Swift 6 language mode")
        say("(\(Swift6Check.command) may show fewer):")
        let compile = Swift6Check.compile(root: workspace.root, products: products(workspace, flags: []))
        let compiled = try compile.run(watchdog: Watchdog(limit: buildLimit))
        if let ranFor = compiled.stoppedAfter {
            return Swift6Check.unmeasured("swiftc was stopped after \(Int(ranFor.components.seconds)) s")
        }
        return Swift6Check.judge(
            buildLog: compiled.output, compiled: compiled.exited && compiled.status == 0, root: workspace.root,
            code: LearnerCode.read(workspace.root.appendingPathComponent(WorkbenchLayout.code)))
    }

    /// Waits for the workbench's race build, plays the scenario where
    /// downloads end together in it, and judges what TSan wrote.
    static func raceCheck(
        _ exercise: Exercise, _ workspace: Workspace, _ raceBuild: RaceBuild, product: String, scratch: URL
    ) throws -> CheckResult {
        say("\nThe data race: the workbench built with Thread Sanitizer (the first time takes a minute or so):")
        say(raceBuild.command)
        let workbench: URL
        switch try racedWorkbench(raceBuild, product: product, scratch: scratch, of: exercise.raceSubject) {
        case .playable(let built): workbench = built
        case .judged(let result): return result
        }
        var verdict = exercise.raceSubject.bug.result(passed: true, measured: "")
        // A run that crashed (or ended early) measured nothing: the next run is played, and it is the verdict
        // unless a later run sees a race.
        var unmeasured: CheckResult?
        for attempt in 1...RaceCheck.runs {
            let (judged, isFinal) = try raceRun(attempt, exercise, workspace, workbench, scratch: scratch)
            if isFinal || (!judged.passed && judged.wasMeasured) { return judged }
            if judged.wasMeasured { verdict = judged } else { unmeasured = unmeasured ?? judged }
        }
        return unmeasured ?? verdict
    }

    /// The race build's workbench, ready to play, or the race bug's verdict when there is none.
    private enum RacedWorkbench {
        case playable(URL)
        case judged(CheckResult)
    }

    /// Waits for the race build and copies its workbench to play it; when it cannot, the verdict that says why.
    private static func racedWorkbench(
        _ raceBuild: RaceBuild, product: String, scratch: URL, of subject: RaceCheck.Subject
    ) throws -> RacedWorkbench {
        let products: URL
        switch try raceBuild.finish() {
        case .built(let built): products = built
        case .failed, .cannotBuild:
            return .judged(subject.bug.result(passed: false, measured: "the Thread Sanitizer build failed"))
        case .failedInTheSuite(let sentence):
            return .judged(
                CheckResult(
                    bug: subject.bug.name, passed: false, measured: "not measured: \(sentence)",
                    expected: subject.bug.expected, hint: "Nothing in your code to fix: the race run was not built.",
                    isSafeguard: subject.bug.isSafeguard, notMeasured: true))
        }
        guard let workbench = playable(product, builtIn: products, copiedInto: scratch.appendingPathComponent("raced"))
        else {
            return .judged(
                CheckResult(
                    bug: subject.bug.name, passed: false, measured: "not measured: the race build could not be played",
                    expected: subject.bug.expected, hint: "Check again: swift run lessons check",
                    isSafeguard: subject.bug.isSafeguard, notMeasured: true))
        }
        return .playable(workbench)
    }

    /// Run `attempt` of the race build, judged on what TSan wrote; final when the run was stopped or ended early.
    private static func raceRun(
        _ attempt: Int, _ exercise: Exercise, _ workspace: Workspace, _ workbench: URL, scratch: URL
    ) throws -> (judged: CheckResult, isFinal: Bool) {
        // An image list plays the race run's story; an operation (exercise 10), the checks that play it.
        let playsStory = exercise.kind == .imageList
        let subject = exercise.raceSubject
        let arguments = playsStory ? RaceCheck.arguments : RaceCheck.checkArguments(exercise: exercise.number)
        let played = RaceCheck.played(arguments)
        // Checks played in the workbench (not a story) have played to their end when they wrote their verdict.
        let verdictFile = scratch.appendingPathComponent("raced-verdict.json")
        say("run \(attempt) of \(RaceCheck.runs): Workbench " + arguments.joined(separator: " "))
        try? FileManager.default.removeItem(at: verdictFile)
        let runArguments = playsStory ? arguments : arguments + ["--verdict", verdictFile.path]
        var child = ChildProcess.scenario(workbench, runArguments)
        child.receivesReport = playsStory
        child.environment.merge(RaceCheck.environment) { $1 }
        // A working directory of its own, as every scenario's: not the package's folder, where the learner's are.
        let folder = try ScratchFolder.make("race-run")
        defer { ScratchFolder.remove(folder) }
        child.directory = folder
        child.output = .discard
        let watch = CheckWatch(exercise)
        watch.playing(played)
        let run = try child.run(watchdog: watch.watchdog)
        let wroteVerdict = FileManager.default.fileExists(atPath: verdictFile.path)
        let code = LearnerCode.read(workspace.root.appendingPathComponent(WorkbenchLayout.code))
        if let ranFor = run.stoppedAfter {
            say(watch.stoppedMessage(after: ranFor, errors: run.errors))
            let why = "the \(played) run was stopped after \(ranFor.components.seconds) s"
            return (RaceCheck.unfinished(why, errors: run.errors, code: code, replaying: arguments, of: subject), true)
        }
        // Checks not solved yet exit 1 having played to their end: their verdict is the race run's evidence.
        let ended = run.status == 0 || run.status == RaceCheck.reportedStatus || (wroteVerdict && run.status == 1)
        guard run.signal != nil || ended else {
            let why = RaceCheck.endedEarly(status: run.status, errors: run.errors, played: arguments)
            return (RaceCheck.unfinished(why, errors: run.errors, code: code, replaying: arguments, of: subject), true)
        }
        let report = run.report.flatMap { try? Report.decoded(from: $0) }
        // A race a fix must keep is judged against the exercise's starting code.
        let start = exercise.raceIsAFixToKeep
            ? LearnerCode.read(workspace.root.appendingPathComponent(exercise.startFolder)) : nil
        let judged = RaceCheck.judge(
            errors: run.errors, crashed: run.signal != nil, reported: playsStory ? run.report != nil : wroteVerdict,
            requests: report?.requests, code: code, start: start, of: subject)
        return (judged, false)
    }
}

/// The workbench's Thread Sanitizer build, started in the background: TSan instruments the learner's code only
/// (`WORKBENCH_RACE_BUILD=1`, read by the workbench's manifest), in a folder of its own beside the ordinary build.
/// A manifest from before that setting has the whole build instrumented (`--sanitize=thread`), as it had then.
final class RaceBuild {
    static let environment = ["WORKBENCH_RACE_BUILD": "1"]
    static let flags = ["--scratch-path", WorkbenchLayout.package + "/.build-race"]
    static let wholeBuildFlags = ["--sanitize=thread", "--scratch-path", WorkbenchLayout.package + "/.build-tsan"]

    /// The command, as a learner would type it.
    let command: String
    private let workspace: Workspace
    private let flags: [String]
    private let started = ContinuousClock.now
    private var running: RunningChild?
    /// The build, to be made again when its errors are all in the suite's sources.
    private var build: ChildProcess?

    private init(_ workspace: Workspace) throws {
        self.workspace = workspace
        let manifest = workspace.workbenchPackage.appendingPathComponent("Package.swift")
        let setting = Self.environment.keys.first!
        let readsSetting = (try? String(contentsOf: manifest, encoding: .utf8))?.contains(setting) ?? false
        flags = readsSetting ? Self.flags : Self.wholeBuildFlags
        // On two lines, as a shell takes it: one would not fit 80 columns.
        command =
            (readsSetting ? "\(setting)=1 " : "") + "swift build --package-path \(WorkbenchLayout.package) \\\n    "
            + flags.joined(separator: " ")
        // A missing manifest is said by the ordinary build, which comes first.
        guard FileManager.default.fileExists(atPath: manifest.path),
            var build = CheckCommand.buildCommand(workspace, flags: flags)
        else { return }
        if readsSetting { build.environment.merge(Self.environment) { $1 } }
        self.build = build
        running = try build.launch()
    }

    static func start(_ workspace: Workspace) throws -> RaceBuild { try RaceBuild(workspace) }

    /// Waits for the build (within the builds' limit, counted from its start) and returns the workbench it
    /// built, or what went wrong, shown; a build made again (its errors all the suite's) gets a limit of its own.
    func finish() throws -> CheckCommand.BuildOutcome {
        guard let running, let build else { return .failed }
        self.running = nil
        let left = CheckCommand.buildLimit - (ContinuousClock.now - started)
        return try CheckCommand.built(workspace, flags: flags, running.wait(watchdog: Watchdog(limit: left))) {
            try build.run(watchdog: Watchdog(limit: CheckCommand.buildLimit))
        }
    }

    /// Ends the build if it is still going, unheard: its workbench will not be played.
    func stop() {
        guard let running else { return }
        self.running = nil
        running.send(SIGTERM)
        _ = running.wait(watchdog: Watchdog(limit: .seconds(30)))
    }
}
