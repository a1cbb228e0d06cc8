import Foundation
import LessonChecks
import Testing

@testable import LessonKit

/// What a learner reads on the way through the exercises: commands that
/// work as printed, a workbench that shows the problem and never the fix,
/// `lessons next` that continues what they are doing, and a build that fails
/// for a reason outside their Swift saying which (issue 35, items 9–14, 17).
@Suite struct LearnerPathTests {
    typealias Commands = ExerciseCommandTests

    /// Every text the learner is shown or reads: the sources that print, the lessons, the docs.
    static func texts() throws -> [(path: String, text: String)] {
        let root = Rig.packageRoot
        var paths = ["README.md"]
        for folder in ["Sources", "Lessons", "docs"] {
            let walker = FileManager.default.enumerator(atPath: root.appendingPathComponent(folder).path)
            while let path = walker?.nextObject() as? String {
                if path.hasSuffix(".swift") || path.hasSuffix(".md") { paths.append(folder + "/" + path) }
            }
        }
        return try paths.map { ($0, try String(contentsOf: root.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// `swift run Workbench …` from the package's folder fails ("no executable product named 'Workbench'"): the
    /// workbench is a package of its own. Every command printed or written names it as it runs.
    @Test func everyWorkbenchCommandNamesItsPackage() throws {
        let wrong = try Self.texts().filter { $0.text.contains("swift run Workbench") }.map(\.path)
        #expect(wrong.isEmpty, "\(wrong) print `swift run Workbench`; it runs as \(WorkbenchLayout.run)")
        #expect(WorkbenchLayout.run.hasPrefix("swift run --package-path \(WorkbenchLayout.package) "))
    }

    /// The README's figures are generated or absent: no count of tests, no time a machine took to run them.
    @Test func theReadmeClaimsNoTestCountOrTestTime() throws {
        let readme = try String(contentsOf: Rig.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let flat = readme.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.firstMatch(of: #/\d+(-odd)? tests/#) == nil, "the README counts the tests")
        #expect(flat.firstMatch(of: /(under|in) (a|one|two|three) minutes?/) == nil, "the README times swift test")
        #expect(flat.firstMatch(of: /a few seconds/) == nil, "the README times a command")
        #expect(flat.firstMatch(of: #/\d+(\.\d+)? s of CPU/#) == nil, "the README times tests (docs/performance.md does)")
    }

    /// A workbench run ends with the task, and its `--help` states it: the
    /// step's one-sentence lesson (its fix) is never shown before the exercise is solved.
    @Test(arguments: ExerciseCatalog.all.map(\.number))
    func theWorkbenchShowsTheProblemNotTheFix(exercise number: Int) throws {
        let exercise = try #require(ExerciseCatalog.exercise(number))
        let workbench = exercise.entry.workbench()
        let ending = LessonMain.ending(workbench)
        let help = LessonMain.help(workbench, usage: "")
        for shown in [ending, help] {
            #expect(!shown.contains(exercise.entry.lesson), "\(shown)")
            #expect(!shown.contains("The lesson"), "\(shown)")
        }
        #expect(ending.contains("Your task: fix it in your code (swift run lessons task)"), "\(ending)")
        #expect(ending.contains("swift run lessons solution \(number)"))
        // The step's own run still ends with its lesson.
        #expect(LessonMain.ending(exercise.entry).contains("The lesson: \(exercise.entry.lesson)"))
    }

    /// The task sends the learner to where the problem is stated, never to the step's fix.
    @Test func theTaskPointsAtTheProblemNotTheFix() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        for exercise in ExerciseCatalog.all {
            let task = try await Commands.lessons(["task", "\(exercise.number)"], root: root)
            #expect(task.status == 0, "\(task.standardError)")
            let flat = task.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(!flat.contains("The fix"), "exercise \(exercise.number): \(flat)")
            #expect(!flat.contains(exercise.entry.lesson), "exercise \(exercise.number): \(flat)")
            #expect(flat.contains("Read: \(exercise.problemText ?? exercise.entry.text) ("), "\(flat)")
        }
        let ten = try #require(ExerciseCatalog.exercise(10))
        let text = try String(
            contentsOf: Rig.packageRoot.appendingPathComponent(try #require(ten.problemText)), encoding: .utf8)
        #expect(text.contains("**Linux and iOS.**") && text.contains("must post `isExecuting` and `isFinished`"))
    }

    /// `lessons play 5` (or `run 5`) on exercise 5, solved: `next` starts exercise 6, and names the step after
    /// the one played; before any exercise, it plays that step.
    @Test func nextContinuesTheExerciseWhateverStepWasPlayed() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(try await Commands.lessons(["exercise", "5", "--yes"], root: root).status == 0)
        try ExerciseFlowTests.setProgress(root, #"{"current": 5, "solved": [2, 3, 4, 5], "lastStepPlayed": 5}"#)
        let next = try await Commands.lessons(["next", "--yes"], root: root)
        #expect(next.status == 0, "\(next.standardError)")
        let said = next.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(said.contains("(You last played step 5; to play step 6: swift run lessons run 6.)"), "\(said)")
        #expect(said.contains("Exercise 5 is solved; next: exercise 6"), "\(said)")
        #expect(!said.contains("Lesson 06 ·"), "a step was played: \(said)")
        #expect(Commands.state(root) == 6)
        // The committed workbench, untouched, is no exercise begun: after step 4, step 5 plays.
        let fresh = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: fresh) }
        try ExerciseFlowTests.setProgress(fresh, #"{"solved": [], "lastStepPlayed": 4}"#)
        let step = try await Commands.lessons(["next"], root: fresh)
        #expect(step.status == 0, "\(step.standardError)")
        #expect(step.standardOutput.contains("You last played step 4; next: step 05, operation pool"))
        #expect(step.standardOutput.contains("Lesson 05 · operation pool"))
    }
}

/// A build of the workbench that fails for no line of the learner's Swift
/// says what is wrong and what to do, and never suggests a reset that would
/// not help. The logs are real `swift build` output (Swift 6.3.1, in
/// /tmp/pathx: a manifest missing a comma, a dependency on an unreachable
/// URL, a package made read-only after a build, run as `nobody`; an
/// executable target of two files and no `main.swift`).
@Suite struct BuildProblemTests {
    static let root = URL(fileURLWithPath: "/tmp/pkg")

    static let brokenManifest = #"""
        error: 'workbench': Invalid manifest (compiled with: ["/opt/swift/usr/bin/swiftc", "-vfsoverlay", "/tmp/TemporaryDirectory.C3A0ar/vfs.yaml", "-L", "/opt/swift/usr/lib/swift/pm/ManifestAPI", "-lPackageDescription", "-swift-version", "6", "/tmp/pkg/Workbench/Package.swift", "-o", "/tmp/TemporaryDirectory.jSQi6O/workbench-manifest"])
        /tmp/pkg/Workbench/Package.swift:3:71: error: expected ',' separator
        1 | // swift-tools-version: 6.0
        2 | import PackageDescription
        3 | let package = Package(name: "W", targets: [.executableTarget(name: "W"])
          |                                                                       `- error: expected ',' separator
        4 |\#u{20}
        """#

    static let unreachableDependency = #"""
        Building for debugging...
        [0/5] Write sources
        [1/5] Write swift-version-6A52383ED409C6A7.txt
        Fetching https://github.com/apple/swift-nonexistent-xyz.git
        error: Git command 'git -C /root/.cache/org.swift.swiftpm/repositories/swift-nonexistent-xyz-1cf6ca12 config --get remote.origin.url' failed: fatal: cannot change to '/root/.cache/org.swift.swiftpm/repositories/swift-nonexistent-xyz-1cf6ca12': No such file or directory
        """#

    static let readOnly = #"""
        warning: /nonexistent/.swiftpm/configuration is not accessible or not writable, disabling user-level cache features.
        error: error: accessing build database "/tmp/pkg/Workbench/.build/build.db": attempt to write a readonly database
        swift-build: /home/build-user/llbuild/lib/Core/BuildEngine.cpp:281: TaskInfo *(anonymous namespace)::BuildEngineImpl::RuleInfo::getPendingTaskInfo(): Assertion `isInProgress()' failed.

        *** Signal 6: Backtracing from 0x7f16fb4a8eec... done ***
        """#

    /// The learner's file warned about twice (two jobs), then the linker's error, which names no line.
    static let noMain = #"""
        [3/7] Compiling Workbench A.swift
        /tmp/pkg/Workbench/Sources/Workbench/A.swift:2:16: warning: initialization of immutable value 'y' was never used
        1 | class A { var x = 1 }
        2 | func f() { let y = 2 }
        [4/8] Emitting module Workbench
        /tmp/pkg/Workbench/Sources/Workbench/A.swift:2:16: warning: initialization of immutable value 'y' was never used
        1 | class A { var x = 1 }
        2 | func f() { let y = 2 }
        [7/9] Write Objects.LinkFileList
        error: link command failed with exit code 1 (use -v to see invocation)
        /usr/bin/ld.gold: error: undefined symbol 'Workbench_main' referenced in expression
        clang: error: linker command failed with exit code 1 (use -v to see invocation)
        [8/9] Linking Workbench
        """#

    /// A failed build's log, how the sentence for it begins, and what it says to do.
    struct Problem: Sendable, CustomTestStringConvertible {
        let log: String
        let begins: String
        let advice: String
        var testDescription: String { String(begins.prefix(40)) }
    }

    static let problems = [
        Problem(
            log: brokenManifest,
            begins: "Workbench/Package.swift, the workbench's manifest, does not load (Workbench/Package.swift:3:71:"
                + " expected ',' separator)",
            advice: "lessons reset does not touch it. Put it back: git checkout Workbench/Package.swift"),
        Problem(
            log: unreachableDependency,
            begins: "The build could not fetch https://github.com/apple/swift-nonexistent-xyz.git",
            advice: "Remove it from Workbench/Package.swift"),
        Problem(
            log: readOnly,
            begins: "The build cannot write in Workbench/ (accessing build database \"Workbench/.build/build.db\":"
                + " attempt to write a readonly database)",
            advice: "chmod -R u+w Workbench"),
    ]

    @Test(arguments: problems) func eachBuildProblemSaysWhatIsWrongAndWhatToDo(_ problem: Problem) throws {
        let said = try #require(WorkbenchDiagnostics.buildProblem(problem.log, root: Self.root))
        #expect(said.hasPrefix(problem.begins), "\(said)")
        #expect(said.contains(problem.advice), "\(said)")
    }

    /// The compiler's own errors are the learner's: no sentence of this kind for them.
    @Test func theLearnersErrorsAreNoBuildProblem() {
        #expect(WorkbenchDiagnostics.buildProblem(WorkbenchDiagnosticsTests.buildLog, root: Self.root) == nil)
        #expect(WorkbenchDiagnostics.buildProblem(Self.noMain, root: Self.root) == nil)
    }

    /// The linker's error is shown, after a warning given twice: it is no more of that warning.
    @Test func theLinkersErrorIsShown() {
        let shown = WorkbenchDiagnostics.compilerErrors(Self.noMain, root: Self.root)
        #expect(shown.contains("/usr/bin/ld.gold: error: undefined symbol 'Workbench_main' referenced in expression"))
        #expect(shown.components(separatedBy: "warning: initialization").count == 2, "\(shown)")
        #expect(!shown.contains("use -v to see invocation"), "\(shown)")
    }

    @Test func theLanguageModeVariableIsNamedWhenSet() throws {
        #expect(WorkbenchDiagnostics.languageModeNote(["PATH": "/bin"]) == nil)
        #expect(WorkbenchDiagnostics.languageModeNote(["WORKBENCH_SWIFT_MODE": "5"]) == nil)
        let said = try #require(WorkbenchDiagnostics.languageModeNote(["WORKBENCH_SWIFT_MODE": "6"]))
        #expect(said.hasPrefix("Note: WORKBENCH_SWIFT_MODE=6 is set in your shell."))
        #expect(said.contains("unset WORKBENCH_SWIFT_MODE") && !said.contains("reset"))
    }
}

/// The learner's files under `lessons check` and `lessons exercise`, played
/// on a sandbox (`ExerciseCommandTests.sandbox`) with a `swift` of the test's
/// own first on PATH: it writes down the language mode it was given, prints
/// `log`, and "builds" `workbench`, a shell script standing for the
/// learner's program, that the check then plays (issue 35, items 5, 8–10).
@Suite struct LearnerFilesTests {
    typealias Commands = ExerciseCommandTests

    struct FakeBuild {
        let folder: URL
        var calls: URL { folder.appendingPathComponent("calls") }
        var path: String { folder.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin") }

        init(log: String = "", status: Int32 = 0, workbench: String = "echo played; exit 1") throws {
            folder = try ScratchFolder.make("fake-swift")
            try log.write(to: folder.appendingPathComponent("build.log"), atomically: true, encoding: .utf8)
            let program = folder.appendingPathComponent("workbench")
            try "#!/bin/sh\n\(workbench)\n".write(to: program, atomically: true, encoding: .utf8)
            let swift = folder.appendingPathComponent("swift")
            try """
                #!/bin/sh
                \(SwiftStandIn.describesTheWorkbench)
                echo "mode=$WORKBENCH_SWIFT_MODE $*" >> '\(calls.path)'
                cat '\(folder.path)/build.log'
                mkdir -p Workbench/.build/debug && cp '\(program.path)' Workbench/.build/debug/Workbench
                exit \(status)

                """.write(to: swift, atomically: true, encoding: .utf8)
            for file in [swift, program] {
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file.path)
            }
        }

        /// `lessons check 2` in `root`, given the workbench's manifest (the sandbox has none: no build reads it).
        func check(_ root: URL, environment: [String: String] = [:]) async throws -> Rig.ProcessResult {
            let manifest = WorkbenchLayout.package + "/Package.swift"
            if !FileManager.default.fileExists(atPath: root.appendingPathComponent(manifest).path) {
                try FileManager.default.copyItem(
                    at: Rig.packageRoot.appendingPathComponent(manifest), to: root.appendingPathComponent(manifest))
            }
            return try await Rig.runProduct(
                "lessons", ["check", "2", "--root", root.path], environment: environment.merging(["PATH": path]) { $1 })
        }
    }

    static func flat(_ text: String) -> String { text.split(whereSeparator: \.isWhitespace).joined(separator: " ") }

    /// Learner code that removes its own source while the check plays it: the
    /// file is put back, byte for byte, and said; the check's copy stays.
    @Test func aFileTheLearnersCodeRemovesIsPutBack() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent(WorkbenchLayout.code + "AppsViewController.swift")
        let before = try Data(contentsOf: file)
        let fake = try FakeBuild(workbench: "rm -f '\(WorkbenchLayout.code)AppsViewController.swift'; exit 1")
        defer { ScratchFolder.remove(fake.folder) }
        let check = try await fake.check(root)
        #expect(check.status == 1, "\(check.standardError)")
        #expect(
            Self.flat(check.standardOutput).contains(
                "\(WorkbenchLayout.code)AppsViewController.swift was removed while the check played your code: it is"
                    + " put back as the check built it."), "\(check.standardOutput)")
        #expect(try Data(contentsOf: file) == before)
        let copy = root.appendingPathComponent(".operationlessons/checked-sources/AppsViewController.swift")
        #expect(try Data(contentsOf: copy) == before)
    }

    /// A scenario plays in a working directory of its own, not the package's folder.
    @Test func aScenarioPlaysInAFolderOfItsOwn() async throws {
        let fake = try FakeBuild()
        defer { ScratchFolder.remove(fake.folder) }
        let seen = fake.folder.appendingPathComponent("pwd")
        let program = fake.folder.appendingPathComponent("scenario")
        try "#!/bin/sh\npwd >> '\(seen.path)'\nexit 1\n".write(to: program, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program.path)
        let scenario = try #require(ImageListChecks.scenarios(exercise: 2).first)
        let run = ImageListChecks.inChildProcesses(program, root: Rig.packageRoot)
        await #expect(throws: RunFailure.self) { _ = try await run(scenario) }
        let folders = try String(contentsOf: seen, encoding: .utf8).split(separator: "\n").map(String.init)
        try #require(!folders.isEmpty)
        #expect(folders.allSatisfy { $0 != Rig.packageRoot.path && !$0.hasPrefix(Rig.packageRoot.path + "/") })
    }

    /// `WORKBENCH_SWIFT_MODE=6` in the learner's shell: the check builds in the mode the exercises are checked
    /// in, and names the variable.
    @Test func theShellsLanguageModeIsNamedAndNotBuiltIn() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let fake = try FakeBuild()
        defer { ScratchFolder.remove(fake.folder) }
        let check = try await fake.check(root, environment: ["WORKBENCH_SWIFT_MODE": "6"])
        #expect(try String(contentsOf: fake.calls, encoding: .utf8) == "mode=5 build --package-path Workbench\n")
        let said = Self.flat(check.standardOutput)
        #expect(said.contains("Note: WORKBENCH_SWIFT_MODE=6 is set in your shell."), "\(said)")
        #expect(!said.contains("lessons reset"), "\(said)")
    }

    /// A manifest that does not load is the suite's file: put back with git, not by a reset that never touches it.
    @Test func aBrokenManifestSaysHowToPutItBack() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let log = BuildProblemTests.brokenManifest.replacingOccurrences(of: "/tmp/pkg", with: root.path)
        let fake = try FakeBuild(log: log, status: 1)
        defer { ScratchFolder.remove(fake.folder) }
        let check = try await fake.check(root)
        #expect(check.status == 1)
        let said = Self.flat(check.standardOutput)
        #expect(said.contains("Put it back: git checkout Workbench/Package.swift"), "\(said)")
        #expect(!said.contains("does not compile") && !said.contains("start over"), "\(said)")
    }

    /// A deleted `main.swift` is the exercise's file, not the learner's: the check writes it again, and says so.
    @Test func aDeletedMainIsWrittenAgain() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let main = root.appendingPathComponent(WorkbenchLayout.code + "main.swift")
        try FileManager.default.removeItem(at: main)
        try ExerciseFlowTests.setProgress(root, #"{"current": 2, "solved": []}"#)
        let fake = try FakeBuild()
        defer { ScratchFolder.remove(fake.folder) }
        let check = try await fake.check(root)
        #expect(
            Self.flat(check.standardOutput).contains(
                "\(WorkbenchLayout.code)main.swift was missing: it is the file that starts your code (lessons exercise"
                    + " 2 wrote it), not part of your code, so it is written again."), "\(check.standardOutput)")
        #expect(try String(contentsOf: main, encoding: .utf8) == ExerciseCatalog.exercise(2)?.workbenchMain)
    }

    /// The workbench's code folder a symbolic link to the learner's own: read
    /// through, and replaced by an exercise only with the link kept in a
    /// backup and nothing it points to touched.
    @Test func aLinkedWorkbenchIsReadThroughAndKept() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let code = root.appendingPathComponent("Workbench/Sources/Workbench")
        let mine = root.appendingPathComponent("my-code")
        try FileManager.default.moveItem(at: code, to: mine)
        try FileManager.default.createSymbolicLink(at: code, withDestinationURL: mine)
        let held = try Commands.files(mine)

        let task = try await Commands.lessons(["task"], root: root)
        #expect(task.status == 0, "\(task.standardError)")
        #expect(task.standardOutput.hasPrefix("Exercise 2 ·"), "\(task.standardOutput)")

        let started = try await Commands.lessons(["exercise", "3", "--yes"], root: root)
        #expect(started.status == 0, "\(started.standardError)")
        let said = Self.flat(started.standardOutput)
        #expect(
            said.contains(
                "It now holds a symbolic link to \(mine.path), which holds exercise 2's starting code, untouched; the"
                    + " link itself is kept in the backup, and nothing in \(mine.path) is changed."), "\(said)")
        #expect(try Commands.files(mine) == held)
        #expect(Commands.state(root) == 3)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: code.path)) == nil)
        let backups = root.appendingPathComponent(".operationlessons/backups")
        let kept = try FileManager.default.contentsOfDirectory(atPath: backups.path)
        try #require(kept.count == 1)
        let link = backups.appendingPathComponent(kept[0]).appendingPathComponent("Workbench")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == mine.path)
    }
}

/// Going on with one's own code (issue 35, item 15): `exercise N --keep-mine`,
/// or yes to the question asked when exercise N-1 was solved with code unlike
/// the step's, keeps the learner's files and makes `main.swift` name exercise
/// N, whose checks then play them; a copy goes to a backup first.
@Suite struct KeepMineTests {
    typealias Commands = ExerciseCommandTests

    /// A sandbox on exercise 3, solved with code of the learner's own.
    static func solvedMyWay() async throws -> (root: URL, file: URL, mine: Data) {
        let root = try Commands.sandbox()
        #expect(try await Commands.lessons(["exercise", "3", "--yes"], root: root).status == 0)
        let file = root.appendingPathComponent(WorkbenchLayout.code + "AppsViewController.swift")
        try WorkbenchSafetyTests.append("\n// my own design\n", to: file)
        try ExerciseFlowTests.setProgress(root, #"{"current": 3, "solved": [2, 3]}"#)
        return (root, file, try Data(contentsOf: file))
    }

    static func lessons(_ arguments: [String], root: URL, answer: String) async throws -> Rig.ProcessResult {
        let keyboard = Pipe()
        keyboard.fileHandleForWriting.write(Data(answer.utf8))
        try keyboard.fileHandleForWriting.close()
        var child = ChildProcess(
            Rig.productsDirectory.appendingPathComponent("lessons"), arguments + ["--root", root.path])
        child.input = .handle(keyboard.fileHandleForReading)
        let end = try await child.finished(watchdog: Watchdog(limit: .seconds(120)))
        return Rig.ProcessResult(
            status: end.status, standardOutput: end.output, standardError: end.errors, signal: end.signal)
    }

    @Test func keepMineCarriesTheCodeIntoTheNextExercise() async throws {
        let (root, file, mine) = try await Self.solvedMyWay()
        defer { try? FileManager.default.removeItem(at: root) }
        let carried = try await Commands.lessons(["exercise", "4", "--keep-mine"], root: root)
        #expect(carried.status == 0, "\(carried.standardError)")
        #expect(try Data(contentsOf: file) == mine)
        #expect(Commands.state(root) == 4)
        #expect(try ExerciseFlowTests.progress(root)["current"] as? Int == 4)
        let said = LearnerFilesTests.flat(carried.standardOutput)
        #expect(said.contains("its main.swift now names exercise 4, whose bugs the check measures on it"), "\(said)")
        #expect(said.contains("Exercise 4 · cache dictionary"))
        let backups = root.appendingPathComponent(".operationlessons/backups")
        let kept = try FileManager.default.contentsOfDirectory(atPath: backups.path)
        try #require(kept.count == 1)
        #expect(
            try Data(contentsOf: backups.appendingPathComponent(kept[0]).appendingPathComponent(file.lastPathComponent))
                == mine)
        // The task's check of exercise 4 reads the learner's files: the workbench is exercise 4's, edited.
        let list = try await Commands.lessons(["exercise"], root: root)
        #expect(list.standardOutput.contains("→ 4"), "\(list.standardOutput)")
    }

    @Test func theNextExerciseAsksToCarryASolutionUnlikeTheSteps() async throws {
        let (root, file, mine) = try await Self.solvedMyWay()
        defer { try? FileManager.default.removeItem(at: root) }
        let next = try await Self.lessons(["next"], root: root, answer: "y\n")
        #expect(next.status == 0, "\(next.standardError)")
        #expect(
            LearnerFilesTests.flat(next.standardOutput).contains(
                "Your solution of exercise 3 is unlike step 3's own code. Go on to exercise 4 with your code, its bugs"
                    + " measured on it (--keep-mine)? [y/N]"), "\(next.standardOutput)")
        #expect(try Data(contentsOf: file) == mine)
        #expect(Commands.state(root) == 4)
    }

    /// Not the exercise before, or another kind of app: refused, nothing changed.
    @Test func keepMineIsRefusedWhereTheCodeCannotStandIn() async throws {
        let (root, file, mine) = try await Self.solvedMyWay()
        defer { try? FileManager.default.removeItem(at: root) }
        let skipped = try await Commands.lessons(["exercise", "5", "--keep-mine"], root: root)
        #expect(skipped.status == 1)
        #expect(skipped.standardOutput.contains("Nothing changed."), "\(skipped.standardOutput)")
        #expect(try Data(contentsOf: file) == mine)
        #expect(Commands.state(root) == 3)
    }
}

/// `n` in `lessons watch`, once an exercise is solved with code unlike the
/// step's: it asks, as `lessons exercise N` does, whether to go on with that
/// code, and only a word typed then Enter answers (ordinary typing keeps all as it is).
@Suite struct WatchKeepMineTests {
    /// Exercise 3 solved with the learner's own code, and a stand-in `swift` whose workbench passes whatever
    /// check it is asked for with exercise 3's verdict; `typed` answers the question `n` asks.
    static func next(typing typed: String) async throws -> (run: PseudoTerminal.Run, held: Int?, mine: Bool) {
        let root = try SwiftStandIn.sandbox()
        let folder = try ScratchFolder.make("watch-keep-mine")
        defer {
            try? FileManager.default.removeItem(at: root)
            ScratchFolder.remove(folder)
        }
        #expect(try await ExerciseCommandTests.lessons(["exercise", "3", "--yes"], root: root).status == 0)
        let file = root.appendingPathComponent(WorkbenchLayout.code + "AppsViewController.swift")
        try WorkbenchSafetyTests.append("\n// my own design\n", to: file)
        let mine = try Data(contentsOf: file)
        try ExerciseFlowTests.setProgress(root, #"{"current": 3, "solved": [2, 3]}"#)
        let three = try #require(ExerciseCatalog.exercise(3))
        let verdict = folder.appendingPathComponent("verdict.json")
        try JSONEncoder().encode(
            CheckEvidence.judgedByTheWorkbench(three).map { $0.result(passed: true, measured: "as the step") }
        ).write(to: verdict)
        let path = try SwiftStandIn.path(in: folder, build: "", workbench: "cp '\(verdict.path)' \"$4\"\nexit 0")
        let run = try await PseudoTerminal.run(
            "lessons", arguments: ["watch", "--root", root.path],
            keys: [
                .type("n", after: "n next · h hint"),
                .type(typed, after: "Type mine and press Enter"),
                .type("q", after: ["mine\r", "step\r"].contains(typed) ? "── check 2" : "Nothing changed."),
            ],
            environment: ["PATH": path], size: (24, 80))
        return (run, ExerciseCommandTests.state(root), (try? Data(contentsOf: file)) == mine)
    }

    @Test func nAsksToKeepTheLearnersCodeAndMineKeepsIt() async throws {
        let (run, held, mine) = try await Self.next(typing: "mine\r")
        #expect(run.restored)
        let said = LearnerFilesTests.flat(PlayTests.screenLines(run.output).joined(separator: " "))
        #expect(said.contains("Your solution of exercise 3 is unlike step 3's own code."), "\(said.suffix(900))")
        #expect(said.contains("its main.swift now names exercise 4"), "\(said.suffix(900))")
        #expect(held == 4)
        #expect(mine)
    }

    /// Typing along (`yes`, as `exercise N` would take) answers nothing: the workbench is as it was.
    @Test func ordinaryTypingChoosesNothing() async throws {
        let (run, held, mine) = try await Self.next(typing: "yes\r")
        #expect(run.status == 0, "solved, and still exercise 3: \(run.output.suffix(600))")
        #expect(held == 3)
        #expect(mine)
    }

    @Test func stepTakesTheStepsCode() async throws {
        let (_, held, mine) = try await Self.next(typing: "step\r")
        #expect(held == 4)
        #expect(!mine)
    }
}
