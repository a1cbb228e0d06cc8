import Foundation
import LessonChecks
import LessonKit
import Testing

@testable import Lesson06SandboxCache

/// `lessons exercise | reset | solution | hint`, played on a copy of the
/// package's exercise folders (`--root`), never on the learner's workbench.
/// (`lessons check` is played in WorkbenchPackageTests; the checks it runs
/// are proven in the steps' tests.)
@Suite struct ExerciseCommandTests {
    /// A package folder holding what the exercise commands read and write:
    /// Package.swift, every exercise's start and solution folders, and a
    /// workbench holding exercise 2's starting code (as committed; the
    /// package's own may hold the learner's work).
    static func sandbox() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("exercises-\(UUID().uuidString)")
        let folders = Set(ExerciseCatalog.all.flatMap { [$0.startFolder, $0.solutionFolder] })
        for folder in folders {
            let copy = root.appendingPathComponent(folder)
            try FileManager.default.createDirectory(
                at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Rig.packageRoot.appendingPathComponent(folder), to: copy)
        }
        try FileManager.default.copyItem(
            at: Rig.packageRoot.appendingPathComponent("Package.swift"),
            to: root.appendingPathComponent("Package.swift"))
        let workbench = root.appendingPathComponent(WorkbenchLayout.code)
        try FileManager.default.createDirectory(
            at: workbench.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: root.appendingPathComponent("Sources/Lesson01SyncLoad"), to: workbench)
        let exercise = try #require(ExerciseCatalog.exercise(2))
        try exercise.workbenchMain.write(
            to: workbench.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
        return root
    }

    static func lessons(_ arguments: [String], root: URL) async throws -> Rig.ProcessResult {
        try await Rig.runProduct("lessons", arguments + ["--root", root.path])
    }

    /// `results` kept as `lessons check` keeps a verdict of `exercise` in the sandbox `root`, for `lessons hint`.
    static func keepLastCheck(_ results: [CheckResult], exercise: Int, in root: URL) throws {
        struct LastCheck: Encodable {
            let exercise: Int
            let date: Date
            let results: [CheckResult]
        }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent(".operationlessons"), withIntermediateDirectories: true)
        try encoder.encode(LastCheck(exercise: exercise, date: Date(), results: results)).write(
            to: root.appendingPathComponent(".operationlessons/last-check.json"))
    }

    /// A path relative to the sandbox, as the commands print it.
    static func relative(_ url: URL, _ root: URL) -> String {
        String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
    }

    /// The exercise the sandbox's workbench holds, by its `main.swift`.
    static func state(_ root: URL) -> Int? {
        (try? String(contentsOf: root.appendingPathComponent(WorkbenchLayout.code + "main.swift"), encoding: .utf8))
            .flatMap(Exercise.number(inWorkbenchMain:))
    }

    static func files(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    /// In CI only (`.ci/run` sets OPERATION_LESSONS_CI): a learner's own
    /// workbench holds their work, not the committed starting code.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["OPERATION_LESSONS_CI"] == "1", "CI only"))
    func theCommittedWorkbenchHoldsExercise2sStartingCodeUntouched() throws {
        let workbench = try Self.files(Rig.packageRoot.appendingPathComponent("Workbench/Sources/Workbench"))
        let start = try Self.files(Rig.packageRoot.appendingPathComponent("Sources/Lesson01SyncLoad"))
        let exercise = try #require(ExerciseCatalog.exercise(2))
        #expect(workbench["main.swift"] == Data(exercise.workbenchMain.utf8))
        #expect(workbench.filter { $0.key != "main.swift" } == start.filter { $0.key != "main.swift" })
    }

    @Test func anExerciseReplacesTheWorkbenchOnlyWhenConfirmedAndKeepsWhatItReplaced() async throws {
        let root = try Self.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let workbench = root.appendingPathComponent("Workbench/Sources/Workbench")
        let committed = try Self.files(workbench)

        // Not confirmed (standard input is empty): nothing changes.
        let refused = try await Self.lessons(["exercise", "3"], root: root)
        #expect(refused.status == 1)
        #expect(refused.standardOutput.contains("Nothing changed"))
        #expect(try Self.files(workbench) == committed)

        // Confirmed: step 2's code and a main.swift for exercise 3; no backup of untouched starting code.
        let started = try await Self.lessons(["exercise", "3", "--yes"], root: root)
        #expect(started.status == 0, "\(started.standardError)")
        #expect(started.standardOutput.contains("a late icon lands in a reused cell of another row"))
        #expect(started.standardOutput.contains("swift run lessons check"))
        let three = try Self.files(workbench)
        let step2 = try Self.files(root.appendingPathComponent("Sources/Lesson02AsyncPlaceholder"))
        #expect(three.filter { $0.key != "main.swift" } == step2.filter { $0.key != "main.swift" })
        #expect(
            three["main.swift"].map { String(decoding: $0, as: UTF8.self) }
                == ExerciseCatalog.exercise(3)?.workbenchMain)
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent(".operationlessons/backups").path))
        let progress = try String(
            contentsOf: root.appendingPathComponent(".operationlessons/progress.json"), encoding: .utf8)
        #expect(progress.contains("\"current\" : 3"))

        // The learner edits; reset puts the starting code back and keeps the edit in a backup.
        let edited = workbench.appendingPathComponent("AppsViewController.swift")
        try (try String(contentsOf: edited, encoding: .utf8) + "\n// my attempt\n").write(
            to: edited, atomically: true, encoding: .utf8)
        let reset = try await Self.lessons(["reset", "--yes"], root: root)
        #expect(reset.status == 0, "\(reset.standardError)")
        #expect(reset.standardOutput.contains("changed: AppsViewController.swift"))
        #expect(try Self.files(workbench) == three)
        let backups = try FileManager.default.contentsOfDirectory(
            atPath: root.appendingPathComponent(".operationlessons/backups").path)
        try #require(backups.count == 1)
        let kept = try String(
            contentsOf: root.appendingPathComponent(".operationlessons/backups/\(backups[0])/AppsViewController.swift"),
            encoding: .utf8)
        #expect(kept.hasSuffix("// my attempt\n"))
    }

    /// The learner's own folder of helpers, beside untouched starting code:
    /// not the exercise's, so it is backed up, at any depth, before it goes.
    @Test func aLearnersOwnSubfolderIsBackedUpBeforeTheWorkbenchIsReplaced() async throws {
        let root = try Self.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let helpers = root.appendingPathComponent("Workbench/Sources/Workbench/Helpers/Deeper")
        try FileManager.default.createDirectory(at: helpers, withIntermediateDirectories: true)
        try "// mine\n".write(to: helpers.appendingPathComponent("Cache.swift"), atomically: true, encoding: .utf8)

        let started = try await Self.lessons(["exercise", "3", "--yes"], root: root)
        #expect(started.status == 0, "\(started.standardError)")
        #expect(
            started.standardOutput.contains(
                "not from the exercise: Helpers/, Helpers/Deeper/, Helpers/Deeper/Cache.swift"))
        let backups = root.appendingPathComponent(".operationlessons/backups")
        let kept = try FileManager.default.contentsOfDirectory(atPath: backups.path)
        try #require(kept.count == 1)
        let copy = backups.appendingPathComponent("\(kept[0])/Helpers/Deeper/Cache.swift")
        #expect(try String(contentsOf: copy, encoding: .utf8) == "// mine\n")
        #expect(
            !FileManager.default.fileExists(
                atPath: root.appendingPathComponent("Workbench/Sources/Workbench/Helpers").path))
    }

    /// Two resets in the same second each keep their own backup: the second
    /// takes the next free name rather than failing.
    @Test func backupsMadeInTheSameSecondGetNamesOfTheirOwn() async throws {
        let root = try Self.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        // The names the next backup could take, from this second to the end of
        // the reset's hang guard, are taken already: a reset now meets the
        // collision for certain, however long a loaded machine makes it wait.
        // Every name is counted from one instant: read afresh for each, a
        // clock that ticked during the loop would leave one second free.
        let backups = root.appendingPathComponent(".operationlessons/backups")
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let hangGuard = 120
        let start = Date()
        var taken: Set<String> = []
        for second in 0...hangGuard {
            let name = formatter.string(from: start.addingTimeInterval(Double(second))) + "-exercise-2"
            try FileManager.default.createDirectory(
                at: backups.appendingPathComponent(name), withIntermediateDirectories: true)
            taken.insert(name)
        }
        let edited = root.appendingPathComponent("Workbench/Sources/Workbench/AppsViewController.swift")
        try (try String(contentsOf: edited, encoding: .utf8) + "// first try\n").write(
            to: edited, atomically: true, encoding: .utf8)
        let reset = try await Rig.runProduct(
            "lessons", ["reset", "2", "--yes", "--root", root.path], timeLimit: .seconds(hangGuard))
        #expect(reset.status == 0, "\(reset.standardError)")
        let made = try FileManager.default.contentsOfDirectory(atPath: backups.path).filter { !taken.contains($0) }
        try #require(made.count == 1, "\(made)")
        #expect(made[0].hasSuffix("-exercise-2-2"))
        let kept = try String(
            contentsOf: backups.appendingPathComponent("\(made[0])/AppsViewController.swift"), encoding: .utf8)
        #expect(kept.hasSuffix("// first try\n"))
    }

    /// A progress file that cannot be read is set aside and said so, never
    /// silently replaced by an empty one.
    @Test func aDamagedProgressFileIsSetAsideWithAMessage() async throws {
        let root = try Self.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let state = root.appendingPathComponent(".operationlessons")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let damaged = #"{"current": 4, "solved": [2, 3"#
        try damaged.write(to: state.appendingPathComponent("progress.json"), atomically: true, encoding: .utf8)

        let list = try await Self.lessons(["exercise"], root: root)
        #expect(list.status == 0)
        #expect(list.standardError.contains(".operationlessons/progress.json is damaged (not JSON)"))
        #expect(list.standardError.contains("kept as .operationlessons/progress.json.damaged"))
        let setAside = try String(
            contentsOf: state.appendingPathComponent("progress.json.damaged"), encoding: .utf8)
        #expect(setAside == damaged)
        #expect(!FileManager.default.fileExists(atPath: state.appendingPathComponent("progress.json").path))
    }

    /// Numbers that are no exercise in a hand-edited progress file are not counted as solved.
    @Test func onlyExercisesThereAreCountAsSolved() async throws {
        let root = try Self.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let state = root.appendingPathComponent(".operationlessons")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try #"{"solved": [-5, 100, 3]}"#
            .write(to: state.appendingPathComponent("progress.json"), atomically: true, encoding: .utf8)
        let list = try await Self.lessons(["exercise"], root: root)
        #expect(list.status == 0)
        #expect(list.standardOutput.contains("· 1/\(ExerciseCatalog.all.count) solved"), "\(list.standardOutput)")
    }

    /// `timelines --out` naming a file: said as such, not "File exists".
    @Test func timelinesIntoAFileSayItIsNotAFolder() async throws {
        let folder = try ScratchFolder.make("timelines-file")
        defer { ScratchFolder.remove(folder) }
        let file = folder.appendingPathComponent("pictures")
        try "mine".write(to: file, atomically: true, encoding: .utf8)
        let run = try await Rig.runProduct("lessons", ["timelines", "--out", file.path], timeLimit: .seconds(30))
        #expect(run.status == 1)
        #expect(
            run.standardError
                == "lessons timelines: \(file.path) is a file, not a folder; name a folder: lessons timelines --out DIR\n")
        #expect(try String(contentsOf: file, encoding: .utf8) == "mine")
    }

    /// A missing `Workbench/Sources/Workbench` is the package all the same: the exercise makes it again and says so.
    @Test func aMissingWorkbenchIsMadeAgain() async throws {
        let root = try Self.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.removeItem(at: root.appendingPathComponent("Workbench/Sources/Workbench"))
        let started = try await Self.lessons(["exercise", "4", "--yes"], root: root)
        #expect(started.status == 0, "\(started.standardError)")
        #expect(started.standardOutput.contains("Made Workbench/Sources/Workbench/ again."))
        let workbench = try Self.files(root.appendingPathComponent("Workbench/Sources/Workbench"))
        #expect(workbench.keys.sorted() == ["AppInfo.swift", "AppsViewController.swift", "main.swift"])
    }

    /// A step's variants (`--naive-pool`…) show its mistakes; they are not
    /// the app the learner fixes, and stay out of the workbench.
    @Test func theWorkbenchGetsTheStepsAppNotItsVariants() async throws {
        let root = try Self.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let started = try await Self.lessons(["exercise", "6", "--yes"], root: root)
        #expect(started.status == 0, "\(started.standardError)")
        // The task says a check keeps every earlier fix, and so does the list.
        #expect(started.standardOutput.contains("a check plays every earlier step's bugs"))
        let list = try await Self.lessons(["exercise"], root: root)
        #expect(list.standardOutput.contains("A check keeps every earlier fix"))
        let workbench = try Self.files(root.appendingPathComponent("Workbench/Sources/Workbench"))
        #expect(workbench.keys.sorted() == ["AppInfo.swift", "AppsViewController.swift", "main.swift"])
        let solution = try await Self.lessons(["solution", "7", "--force"], root: root)
        #expect(!solution.standardOutput.contains("LastComponentNamesViewController.swift"))
        #expect(solution.standardOutput.contains("+++ Sources/Lesson07CustomOperation/DownloadOperation.swift"))
    }

    @Test func theSolutionWaitsForTheCheckUnlessForced() async throws {
        let root = try Self.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let locked = try await Self.lessons(["solution", "3"], root: root)
        #expect(locked.status == 1)
        #expect(locked.standardOutput.contains("not solved yet"))
        #expect(!locked.standardOutput.contains("+++"))
        let forced = try await Self.lessons(["solution", "3", "--force"], root: root)
        #expect(forced.status == 0, "\(forced.standardError)")
        #expect(forced.standardOutput.contains("+++ Sources/Lesson03ModelCache/AppInfo.swift"))
        #expect(forced.standardOutput.contains("+    var image: Image?"))
        // Exercise 8's solution is step 8's fix alone: the dependencies and the cycle check.
        let eight = try await Self.lessons(["solution", "8", "--force"], root: root)
        #expect(eight.standardOutput.contains("+            unzip.addDependency(download)"))
        #expect(eight.standardOutput.contains("+enum DependencyCheck {"))
        #expect(!eight.standardOutput.contains("Tour"))
    }

    @Test func hintsNameEveryBugWithWhyAndWhatToTry() async throws {
        let root = try Self.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        for exercise in ExerciseCatalog.all {
            let hint = try await Self.lessons(["hint", "\(exercise.number)"], root: root)
            #expect(hint.status == 0)
            for bug in exercise.bugs {
                #expect(hint.standardOutput.contains(bug.name))
            }
            #expect(hint.standardOutput.contains(exercise.entry.text))
        }
        let list = try await Self.lessons(["exercise"], root: root)
        #expect(list.standardOutput.contains("0/\(ExerciseCatalog.all.count) solved"))
    }

    static let badCommandLines: [([String], String)] = [
        (["exercise", "12"], "there is no exercise 12"),
        (["exercise", "1"], "there is no exercise 1"),
        (["hint", "--bogus"], "unknown flag --bogus"),
        (["watch", "--max-checks", "0"], "--max-checks takes a whole number from 1 to 1000, not '0'"),
        (["next", "3"], "unexpected argument '3'"),
        (["hint", "two"], "'two' is not an exercise number"),
        (["check", "2", "3"], "unexpected argument '3'"),
        (["reset", "--bogus"], "unknown flag --bogus"),
    ]

    @Test(arguments: badCommandLines)
    func aBadCommandLineIsAnErrorWithTheUsage(arguments: [String], message: String) async throws {
        let root = try Self.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await Self.lessons(arguments, root: root)
        #expect(run.status == 2)
        #expect(run.standardError.contains(message))
        #expect(run.standardError.contains("usage: lessons \(arguments[0])"))
    }

    @Test func aFolderThatIsNotThePackageIsRefused() async throws {
        let run = try await Rig.runProduct("lessons", ["exercise", "--root", "/tmp"])
        #expect(run.status == 1)
        #expect(run.standardError.contains("/tmp is not the OperationLessons package folder"))
    }
}

/// The exercises the way rustlings and Exercism users expect them: hints
/// that nudge first, a list that knows where you are, `lessons next`, and a
/// check whose verdict is kept for the hints.
@Suite struct ExerciseFlowTests {
    typealias Commands = ExerciseCommandTests

    static func progress(_ root: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: root.appendingPathComponent(".operationlessons/progress.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func setProgress(_ root: URL, _ json: String) throws {
        let state = root.appendingPathComponent(".operationlessons")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        try json.write(to: state.appendingPathComponent("progress.json"), atomically: true, encoding: .utf8)
    }

    @Test func hintsGoOneLevelAtATimeAndTheCodeComesLast() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let freeze = KnownBug.all[0].text.hints
        // No number: the exercise the workbench holds (2).
        let first = try await Commands.lessons(["hint"], root: root)
        #expect(first.status == 0, "\(first.standardError)")
        #expect(first.standardOutput.contains("Exercise 2 · async with a placeholder · hint 1 of 3"))
        #expect(first.standardOutput.contains(freeze.question) && first.standardOutput.contains("\(freeze.place)"))
        #expect(!first.standardOutput.contains(freeze.api) && !first.standardOutput.contains(freeze.code[0].first))
        // Asked again without --more: the same level.
        #expect(try await Commands.lessons(["hint"], root: root).standardOutput == first.standardOutput)

        let second = try await Commands.lessons(["hint", "--more"], root: root)
        #expect(second.standardOutput.contains("hint 2 of 3") && second.standardOutput.contains(freeze.api))
        #expect(!second.standardOutput.contains(freeze.code[0].first))
        let third = try await Commands.lessons(["hint", "--more"], root: root)
        #expect(third.standardOutput.contains("hint 3 of 3") && third.standardOutput.contains(freeze.code[0].first))
        let beyond = try await Commands.lessons(["hint", "--more"], root: root)
        #expect(beyond.standardOutput.contains("That was the last level"))
        #expect(try Self.progress(root)["hintLevels"] as? [String: Int] == ["2": 3])
        // Each exercise has its own level.
        #expect(try await Commands.lessons(["hint", "3"], root: root).standardOutput.contains("hint 1 of 3"))
    }

    /// The last check's verdict, as `lessons check` keeps it, of exercise 5
    /// played against step 6's tutorial file names: one verdict says what the
    /// check saw (icons sharing a file) and why; the retry, not measured apart
    /// from it, is hinted at with that, not with its own question.
    @Test func theHintSaysWhatTheLastCheckSaw() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let results = await ExerciseProof.imageList(5, LastComponentNamesViewController.self)
        let retry = try #require(results.first { $0.bug == "a failed icon is never tried again" })
        let shared = "icons whose URLs end alike share one file on disk"
        let verdict = try #require(results.first { !$0.passed && $0.wasMeasured && $0.title == shared })
        let seen = try #require(verdict.diagnosis)
        try ExerciseCommandTests.keepLastCheck(results, exercise: 5, in: root)

        let hint = try await Commands.lessons(["hint", "5"], root: root)
        #expect(hint.status == 0, "\(hint.standardError)")
        #expect(hint.standardOutput.contains("From your last check"))
        // The rows not measured counted apart from the bugs seen (VerdictSummaryTests).
        #expect(hint.standardOutput.contains(results.stillThere))
        #expect(hint.standardOutput.contains("Seen:  \(seen)"))
        #expect(hint.standardOutput.contains("So:    \(verdict.hint)"))
        #expect(!retry.wasMeasured && hint.standardOutput.contains("So:    \(retry.hint)"))
        let retryQuestion = try #require(KnownBug.named(retry.bug)).text.hints.question
        #expect(!hint.standardOutput.contains(retryQuestion))
        // Only the bugs that failed: one that passed is not hinted at.
        for result in results where result.passed { #expect(!hint.standardOutput.contains(". \(result.bug)\n")) }
        // The verdict of another exercise says nothing about this one.
        #expect(
            try await Commands.lessons(["hint", "6"], root: root).standardOutput.contains("From your last") == false)
    }

    /// After `reset 2` while on 3, the list marks exercise 2, the one the workbench holds.
    @Test func theListMarksTheExerciseTheWorkbenchHolds() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.setProgress(root, #"{"current": 3, "solved": [2]}"#)
        #expect(try await Commands.lessons(["exercise", "3", "--yes"], root: root).status == 0)
        #expect(try await Commands.lessons(["reset", "2", "--yes"], root: root).status == 0)
        let list = try await Commands.lessons(["exercise"], root: root).standardOutput
        #expect(list.contains("→ 2   async with a placeholder"))
        #expect(list.contains("On exercise 2, solved. Next: swift run lessons next"))
        #expect(!list.contains("exercise 3"), "\(list)")
        // The workbench put back by hand (`git checkout Workbench`): it, not the progress file, says.
        try Self.setProgress(root, #"{"current": 3, "solved": [2]}"#)
        let byHand = try await Commands.lessons(["exercise"], root: root).standardOutput
        #expect(byHand.contains("→ 2   async with a placeholder") && !byHand.contains("→ 3"))
    }

    @Test func nextGoesOnFromWhereTheLearnerIs() async throws {
        let root = try Commands.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        // On exercise 2, not solved: not yet, and how to move on anyway.
        try Self.setProgress(root, #"{"current": 2, "solved": []}"#)
        let notYet = try await Commands.lessons(["next"], root: root)
        #expect(notYet.status == 1)
        #expect(notYet.standardOutput.contains("Exercise 2 is not solved yet"))
        #expect(notYet.standardOutput.contains("To move on anyway: swift run lessons exercise 3"))
        // Solved: the next exercise goes in the workbench.
        try Self.setProgress(root, #"{"current": 2, "solved": [2]}"#)
        let started = try await Commands.lessons(["next", "--yes"], root: root)
        #expect(started.status == 0, "\(started.standardError)")
        let main = try String(
            contentsOf: root.appendingPathComponent("Workbench/Sources/Workbench/main.swift"), encoding: .utf8)
        #expect(Exercise.number(inWorkbenchMain: main) == 3)
        // On exercise 3, a step played since is named, never played in its place.
        try Self.setProgress(root, #"{"current": 3, "solved": [2], "lastStepPlayed": 4}"#)
        let step = try await Commands.lessons(["next"], root: root)
        #expect(step.status == 1, "\(step.standardError)")
        #expect(step.standardOutput.contains("(You last played step 4; to play step 5: swift run lessons run 5.)"))
        #expect(step.standardOutput.contains("Exercise 3 is not solved yet"))
        #expect(!step.standardOutput.contains("Lesson 05 ·"))
    }
}
