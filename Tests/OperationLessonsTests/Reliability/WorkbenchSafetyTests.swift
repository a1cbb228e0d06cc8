import Foundation
import LessonChecks
import LessonKit
import Synchronization
import Testing

/// The learner's files under the exercise commands, as issue 25 tried them:
/// a save while the prompt waits, commands at once, an install that cannot
/// finish, FIFOs, and progress files no program wrote. Each case ends with
/// every line the learner wrote still on disk, and a sentence for anything
/// that could not be done.
@Suite struct WorkbenchSafetyTests {
    typealias Commands = ExerciseCommandTests

    static func workbench(_ root: URL) -> URL { root.appendingPathComponent(WorkbenchLayout.code) }

    static func backups(_ root: URL) -> [URL] {
        let folder = root.appendingPathComponent(".operationlessons/backups")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { folder.appendingPathComponent($0) }
    }

    static func append(_ text: String, to file: URL) throws {
        try (try String(contentsOf: file, encoding: .utf8) + text).write(to: file, atomically: true, encoding: .utf8)
    }

    /// `lessons ARGUMENTS --root ROOT` answering its "Go on? [y/N]" with y,
    /// after `atPrompt` ran: what a learner does who goes back to the editor
    /// while the question waits.
    static func answering(
        _ arguments: [String], root: URL, atPrompt: () throws -> Void
    ) async throws -> (status: Int32, output: String, errors: String) {
        let keyboard = Pipe()
        let output = Mutex("")
        let printed = Changes()
        let errors = Mutex("")
        var child = ChildProcess(
            Rig.productsDirectory.appendingPathComponent("lessons"), arguments + ["--root", root.path])
        child.input = .handle(keyboard.fileHandleForReading)
        child.output = .stream { data in
            output.withLock { $0 += String(decoding: data, as: UTF8.self) }
            printed.notify()
        }
        child.errors = .stream { data in errors.withLock { $0 += String(decoding: data, as: UTF8.self) } }
        let running = try child.launch()
        // A run that hangs is ended by the watchdog, and fails below rather than hanging the suite.
        async let finished = running.finished(watchdog: Watchdog(limit: .seconds(120)))
        try await printed.wait("the question \"Go on? [y/N]\" (printed so far: \(output.withLock { $0 }))") {
            output.withLock { $0.contains("Go on? [y/N] ") }
        }
        try atPrompt()
        keyboard.fileHandleForWriting.write(Data("y\n".utf8))
        try keyboard.fileHandleForWriting.close()
        let end = await finished
        #expect(end.stoppedAfter == nil, "the command did not end by itself")
        return (end.status, output.withLock { $0 }, errors.withLock { $0 })
    }

    // MARK: issue 25 item 1: a save while the prompt waits

    /// The workbench untouched when asked (no backup said), then saved to
    /// before the answer: the save is backed up, not deleted.
    @Test func aSaveWhileThePromptWaitsIsBackedUp() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = Self.workbench(root).appendingPathComponent("AppsViewController.swift")
        let run = try await Self.answering(["exercise", "3"], root: root) {
            try Self.append("// saved while the question waited\n", to: file)
        }
        #expect(run.status == 0, "\(run.errors)")
        let backups = Self.backups(root)
        try #require(backups.count == 1, "\(run.output)")
        let kept = try String(
            contentsOf: backups[0].appendingPathComponent("AppsViewController.swift"), encoding: .utf8)
        #expect(kept.hasSuffix("// saved while the question waited\n"))
        #expect(
            run.output.contains(
                "Backed up to \(Commands.relative(backups[0], root)) (the workbench changed while the question waited)."
            ))
        #expect(Commands.state(root) == 3)
    }

    // MARK: issue 26 item 8: the backup named in the prompt is the one made

    /// Edited code: the prompt names its backup folder. Another command takes
    /// that name while the question waits (it would, a second later); the
    /// backup still goes where the prompt said.
    @Test func theBackupFolderNamedInThePromptIsTheOneMade() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = Self.workbench(root).appendingPathComponent("AppsViewController.swift")
        try Self.append("// my attempt\n", to: file)
        var promised = ""
        let run = try await Self.answering(["reset", "2"], root: root) {
            let said = try #require(
                Self.backups(root).first, "no backup folder made when it was named")
            promised = Commands.relative(said, root)
            try FileManager.default.createDirectory(at: said, withIntermediateDirectories: true)
        }
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("A copy of it goes to \(promised)."), "\(run.output)")
        #expect(run.output.contains("Backed up to \(promised)."), "\(run.output)")
        let kept = try String(
            contentsOf: root.appendingPathComponent(promised).appendingPathComponent("AppsViewController.swift"),
            encoding: .utf8)
        #expect(kept.hasSuffix("// my attempt\n"))
        #expect(Self.backups(root).count == 1)
    }

    /// Asked and refused: the backup folder named is not left behind.
    @Test func aRefusedExerciseLeavesNoBackupFolder() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.append("// mine\n", to: Self.workbench(root).appendingPathComponent("AppInfo.swift"))
        let refused = try await Commands.lessons(["exercise", "3"], root: root)
        #expect(refused.status == 1)
        #expect(refused.standardOutput.contains("Nothing changed."))
        #expect(Self.backups(root).isEmpty)
    }

    // MARK: issue 25 item 2: two commands at once

    /// Six `exercise 3/4 --yes` at once on edited code: each waits its turn;
    /// the workbench ends holding one exercise whole, the progress file says
    /// that one, the edit is in a backup, and nothing prints a raw error.
    @Test func commandsAtOnceTakeTurns() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.append("// mine\n", to: Self.workbench(root).appendingPathComponent("AppsViewController.swift"))
        let runs = try await withThrowingTaskGroup(of: Rig.ProcessResult.self) { group in
            for index in 0..<6 {
                group.addTask {
                    try await Commands.lessons(["exercise", index % 2 == 0 ? "3" : "4", "--yes"], root: root)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for run in runs {
            #expect(run.status == 0, "\(run.standardError)")
            #expect(!run.standardError.contains("Error Domain"), "\(run.standardError)")
        }
        let held = try #require(Commands.state(root))
        #expect([3, 4].contains(held))
        let step = held == 3 ? "Sources/Lesson02AsyncPlaceholder" : "Sources/Lesson03ModelCache"
        let workbench = try Commands.files(Self.workbench(root))
        let start = try Commands.files(root.appendingPathComponent(step))
        #expect(workbench.filter { $0.key != "main.swift" } == start.filter { $0.key != "main.swift" })
        #expect(try ExerciseFlowTests.progress(root)["current"] as? Int == held)
        let kept = Self.backups(root).compactMap {
            try? String(contentsOf: $0.appendingPathComponent("AppsViewController.swift"), encoding: .utf8)
        }
        #expect(kept.contains { $0.hasSuffix("// mine\n") }, "\(Self.backups(root))")
    }

    // MARK: issue 25 item 3: an install that cannot finish

    /// An immutable file in the workbench (which cannot be deleted): the
    /// workbench is moved to the backup whole, the new one swapped in, and
    /// every file of the learner's is in the backup byte for byte.
    @Test(.enabled(if: geteuid() == 0, "chattr needs root"))
    func anImmutableFileGoesToTheBackupWhole() async throws {
        let root = try Commands.sandbox()
        let locked = Self.workbench(root).appendingPathComponent("Locked.swift")
        try "// cannot be deleted\n".write(to: locked, atomically: true, encoding: .utf8)
        let before = try Commands.files(Self.workbench(root))
        try #require(FaultyOutputTests.makeUnremovable(locked))
        defer {
            for backup in Self.backups(root) {
                FaultyOutputTests.makeRemovable(backup.appendingPathComponent("Locked.swift"))
            }
            FaultyOutputTests.makeRemovable(locked)
            try? FileManager.default.removeItem(at: root)
        }
        let run = try await Commands.lessons(["exercise", "3", "--yes"], root: root)
        #expect(run.status == 0, "\(run.standardError)")
        let backups = Self.backups(root)
        try #require(backups.count == 1)
        #expect(try Commands.files(backups[0]) == before)
        #expect(Commands.state(root) == 3)
    }

    /// An immutable workbench folder (it cannot be moved or emptied): one
    /// sentence, and the workbench and the backups as they were.
    @Test(.enabled(if: geteuid() == 0, "chattr needs root"))
    func aWorkbenchThatCannotBeReplacedIsLeftAsItWas() async throws {
        let root = try Commands.sandbox()
        try Self.append("// mine\n", to: Self.workbench(root).appendingPathComponent("AppsViewController.swift"))
        let before = try Commands.files(Self.workbench(root))
        try #require(FaultyOutputTests.makeUnremovable(Self.workbench(root)))
        defer {
            FaultyOutputTests.makeRemovable(Self.workbench(root))
            try? FileManager.default.removeItem(at: root)
        }
        let run = try await Commands.lessons(["exercise", "3", "--yes"], root: root)
        #expect(run.status == 1)
        #expect(
            run.standardError.contains("cannot move \(WorkbenchLayout.code.dropLast()) to .operationlessons/backups/"))
        #expect(run.standardError.contains("Operation not permitted); nothing was changed"), "\(run.standardError)")
        #expect(!run.standardError.contains("Error Domain"))
        #expect(run.standardError.split(separator: "\n").count == 1, "\(run.standardError)")
        #expect(try Commands.files(Self.workbench(root)) == before)
        #expect(Self.backups(root).isEmpty)
    }

    // MARK: issue 25 item 4: FIFOs

    /// A FIFO beside edited code, and one in place of `main.swift`: neither
    /// is opened; the workbench goes to the backup with them in it.
    @Test func aFIFOInTheWorkbenchNeitherHangsNorIsLost() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let workbench = Self.workbench(root)
        try Self.append("// mine\n", to: workbench.appendingPathComponent("AppsViewController.swift"))
        try #require(mkfifo(workbench.appendingPathComponent("Pipe.swift").path, 0o644) == 0)
        let run = try await Rig.runProduct(
            "lessons", ["exercise", "3", "--yes", "--root", root.path], timeLimit: .seconds(60))
        #expect(run.status == 0, "\(run.standardError)")
        let backups = Self.backups(root)
        try #require(backups.count == 1)
        var info = stat()
        #expect(
            lstat(backups[0].appendingPathComponent("Pipe.swift").path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        #expect(
            try String(contentsOf: backups[0].appendingPathComponent("AppsViewController.swift"), encoding: .utf8)
                .hasSuffix("// mine\n"))

        // A FIFO main.swift: code no exercise wrote; reset it and it is kept, never read.
        let main = workbench.appendingPathComponent("main.swift")
        try FileManager.default.removeItem(at: main)
        try #require(mkfifo(main.path, 0o644) == 0)
        let reset = try await Rig.runProduct(
            "lessons", ["reset", "3", "--yes", "--root", root.path], timeLimit: .seconds(60))
        #expect(reset.status == 0, "\(reset.standardError)")
        #expect(reset.standardOutput.contains("It now holds code that no exercise wrote."))
        #expect(Self.backups(root).count == 2)

        // A FIFO where the solution compares the learner's file: named, not read.
        let appInfo = workbench.appendingPathComponent("AppInfo.swift")
        try FileManager.default.removeItem(at: appInfo)
        try #require(mkfifo(appInfo.path, 0o644) == 0)
        let solution = try await Rig.runProduct(
            "lessons", ["solution", "3", "--force", "--root", root.path], timeLimit: .seconds(60))
        #expect(solution.status == 0, "\(solution.standardError)")
        #expect(
            solution.standardOutput.contains(
                "\(WorkbenchLayout.code)AppInfo.swift is not a regular file (a FIFO or a device): not compared"))
    }

    /// A FIFO `main.swift`: `lessons check` says so instead of starting a
    /// build that would read it for ever.
    @Test func aFIFOSourceIsRefusedBeforeTheBuild() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let main = Self.workbench(root).appendingPathComponent("main.swift")
        try FileManager.default.removeItem(at: main)
        try #require(mkfifo(main.path, 0o644) == 0)
        let check = try await Rig.runProduct("lessons", ["check", "2", "--root", root.path], timeLimit: .seconds(60))
        #expect(check.status == 1, "\(check.standardOutput)")
        #expect(
            check.standardOutput.contains(
                "\(WorkbenchLayout.code)main.swift is a FIFO (a named pipe), not a source file: swift build would wait"
                    + " on it for ever. Remove it (rm \(WorkbenchLayout.code)main.swift)"), "\(check.standardOutput)")
    }

    // MARK: issue 25 item 13: messages about the learner's files

    static let progressFiles: [(String, String)] = [
        (
            #"{"solved": [-5, 100, 3]}"#,
            "names exercises, steps or hint levels that do not exist (-5, 100); they are left out"
        ),
        (
            #"{"solved": [3], "current": 99999999999999999999999}"#,
            "is damaged (a number too large, or not a whole number)"
        ),
        (#"{"solved": [1e400]}"#, "is damaged (a number too large: 1e400)"),
        (#"{"solved": [3.5]}"#, "is damaged (a number too large, or not a whole number)"),
        (#"{"solved": [3"#, "is damaged (not JSON)"),
    ]

    @Test(arguments: progressFiles)
    func aProgressFileNoProgramWroteIsOneSentence(json: String, message: String) async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        try ExerciseFlowTests.setProgress(root, json)
        let list = try await Commands.lessons(["exercise"], root: root)
        #expect(list.status == 0)
        #expect(
            list.standardError.contains("lessons: .operationlessons/progress.json \(message)"), "\(list.standardError)")
        #expect(list.standardError.split(separator: "\n").count == 1)
        // Only the numbers that name an exercise count.
        #expect(
            list.standardOutput.contains("\(json.contains("[-5") ? 1 : 0)/\(ExerciseCatalog.all.count) solved"),
            "\(list.standardOutput)")
    }

    @Test func aFIFOProgressFileIsSetAsideUnread() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let state = root.appendingPathComponent(".operationlessons")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try #require(mkfifo(state.appendingPathComponent("progress.json").path, 0o644) == 0)
        let list = try await Rig.runProduct("lessons", ["exercise", "--root", root.path], timeLimit: .seconds(60))
        #expect(list.status == 0)
        #expect(
            list.standardError
                == "lessons: .operationlessons/progress.json is a FIFO (a named pipe), not a file; it is kept as"
                + " .operationlessons/progress.json.damaged, and the exercises start again from none solved.\n")
    }

    /// A file where the backups folder goes: a sentence, nothing changed.
    @Test func aBackupsFolderThatIsAFileIsOneSentence() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.append("// mine\n", to: Self.workbench(root).appendingPathComponent("AppsViewController.swift"))
        let before = try Commands.files(Self.workbench(root))
        try ExerciseFlowTests.setProgress(root, #"{"solved": []}"#)
        try "not a folder".write(
            to: root.appendingPathComponent(".operationlessons/backups"), atomically: true, encoding: .utf8)
        let run = try await Commands.lessons(["exercise", "3", "--yes"], root: root)
        #expect(run.status == 1)
        #expect(
            run.standardError
                == "lessons exercise: .operationlessons/backups is a file, not a folder: move it away (mv"
                + " .operationlessons/backups .operationlessons/backups.old) and run this again\n")
        #expect(try Commands.files(Self.workbench(root)) == before)
    }

    // MARK: issue 26 item 5: the task again

    @Test func theTaskIsShownAgainWithoutTouchingTheWorkbench() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.append("// mine\n", to: Self.workbench(root).appendingPathComponent("AppsViewController.swift"))
        let before = try Commands.files(Self.workbench(root))
        let task = try await Commands.lessons(["task"], root: root)
        #expect(task.status == 0, "\(task.standardError)")
        #expect(task.standardOutput.hasPrefix("Exercise 2 · async with a placeholder\n"))
        #expect(task.standardOutput.contains("downloads freeze the main queue"))
        #expect(try Commands.files(Self.workbench(root)) == before)
        #expect(Self.backups(root).isEmpty)
        let list = try await Commands.lessons(["exercise"], root: root)
        #expect(list.standardOutput.contains("Its task again: swift run lessons task"))
    }
}
