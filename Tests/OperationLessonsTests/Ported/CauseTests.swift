import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import Testing

@preconcurrency @testable import Lesson09LotteryMachine

/// Evidence first, one cause once: the image-list checks tried on learners'
/// shapes whose one slip is not the bug a failed expectation is named after.
/// Each slip is one verdict, titled by what was measured; every other
/// expectation it broke says it depends on it; and no hint names what the
/// learner's files do not have.
@Suite struct CauseTests {
    /// `files`, beside this one, as the learner's code.
    static func code(_ files: [String]) -> LearnerCode {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        var texts: [String: String] = [:]
        for file in files {
            texts[file] = (try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)) ?? ""
        }
        return LearnerCode(files: texts)
    }

    static func check(_ exercise: Int, _ controller: any LessonController.Type, _ files: [String]) async
        -> [CheckResult]
    {
        await ImageListChecks.check(
            exercise: exercise, code: code(files),
            run: ImageListChecks.inProcess(controller, exercise: exercise, newProcesses: NewProcessRuns.play))
    }

    /// The ✗ rows: judged on evidence and failed.
    static func failed(_ results: [CheckResult]) -> [CheckResult] {
        results.filter { !$0.passed && $0.wasMeasured }
    }

    static let sharedFiles = "icons whose URLs end alike share one file on disk"
    static let loaderFiles = [
        "PortedLastComponentLoader.swift", "PortedWarningCancels.swift", "PortedPoolKept.swift",
    ]

    /// A loader that names files by the URL's last path component: exercises
    /// 5, 6 and 7 give one verdict for it, with the rows that share a name and
    /// the files on disk, and every expectation its wrong icons broke (the
    /// stall, the relaunch, the offline relaunch, the late icon, the failed
    /// icon) is "not measured apart from" it, never a ✗ of its own.
    @Test(arguments: [5, 6, 7]) func iconsSharingAFileAreOneVerdict(exercise: Int) async throws {
        let results = await Self.check(exercise, LastComponentLoaderController.self, Self.loaderFiles)
        let shared = Self.failed(results).filter { $0.title == Self.sharedFiles }
        #expect(shared.count == 1, "\(results.rendered(exercise: exercise))")
        let verdict = try #require(shared.first)
        #expect(verdict.diagnosis?.contains("have URLs ending in icon.png") == true, "\(verdict)")
        #expect(verdict.diagnosis?.contains("files on disk for") == true)
        // Which rows showed whose icon, from the report's `othersIcons`, and the file it was read from, from its
        // `diskReadFiles`: row 6's icon, in `icon.png`, read for rows that share the name.
        #expect(
            verdict.diagnosis?.contains(" row 6's icon (read from `icon.png` on disk); rows 0, 1") == true,
            "\(verdict.diagnosis ?? "")")
        for result in results where result.measured.contains("fast-scroll-slow-rows;") {
            #expect(
                result.measured.contains(
                    ": rows 30 and 31 show row 6's icon (read from `icon.png` on disk) on fast-scroll-slow-rows; "))
        }
        for bug in [
            "downloads freeze the main queue", "a relaunch downloads every icon again",
            "an offline relaunch shows only placeholders", "a late icon lands in a reused cell of another row",
            "a failed icon is never tried again",
        ] {
            guard let result = results.first(where: { $0.bug == bug }), !result.passed, result.title != Self.sharedFiles
            else { continue }
            #expect(!result.wasMeasured, "\(bug): \(result.measured)")
            #expect(result.measured.hasPrefix("not measured apart from \(Self.sharedFiles): "), "\(result.measured)")
        }
        if exercise == 7 {
            // Its own number is 0; on memory-warning-then-back 6 of 8 rows end right, the last two still downloading
            // behind downloads for rows scrolled away: one verdict, titled and seen as measured.
            let waiting = try #require(results.first { $0.bug == "waiting downloads start after a memory warning" })
            #expect(!waiting.passed && waiting.wasMeasured)
            #expect(waiting.measured.hasPrefix("0 downloads started after the warning"))
            #expect(waiting.title == "rows still downloading when the story ended")
            #expect(
                waiting.diagnosis
                    == "2 of 8 visible rows without their icon at the end on memory-warning-then-back: rows 20 and 21 "
                    + "were still downloading (started at 49093 and 50311 ms, the story ended at 54267 ms); before "
                    + "them, 6 downloads of rows 10, 11, 12 and 13 ended without reaching a cell",
                "\(waiting.diagnosis ?? "")")
            #expect(!waiting.hint.contains("none of the course's bugs"))
        }
        if exercise == 5 {
            // A bug of step 6, met early: said to be a later step's.
            #expect(verdict.hint.hasSuffix("(Step 6 is where the course comes to this bug.)"))
        }
        // No other ✗ names a bug of the table that the runs did not measure.
        let rendered = results.rendered(exercise: exercise)
        #expect(!rendered.contains("✗ broken    downloads freeze the main queue"))
        #expect(!rendered.contains("placeholder") || !rendered.contains("✗ broken    an offline relaunch"))
    }

    static let duplicate = "a slow icon scrolled away and back is downloaded twice at once"

    /// A re-download after the first ended (ClassicPhotos' thrown-away fetch,
    /// a cell that cancels its task): the row is titled by what was measured,
    /// never "downloaded twice at once" beside "0 duplicates in flight".
    @Test func noTwiceAtOnceHeadlineWithoutADuplicateInFlight() async throws {
        for (controller, file) in [
            (ClassicPhotosController.self as any LessonController.Type, "PortedClassicPhotos.swift"),
            (CellOwnsItsTaskController.self, "PortedCellTasks.swift"),
        ] {
            let results = await Self.check(5, controller, [file])
            let duplicate = try #require(results.first { $0.bug == Self.duplicate })
            #expect(!duplicate.passed && duplicate.measured.hasPrefix("0 duplicates in flight"))
            #expect(duplicate.title == "an icon downloaded again, never two at once")
            #expect(!results.rendered(exercise: 5).contains("✗ not fixed \(Self.duplicate)"))
        }
    }

    static let suspendedFiles = [
        "PortedSuspendedAfterDrag.swift", "PortedWarningCancels.swift", "PortedPoolKept.swift",
    ]

    /// A queue resumed only when a glide ends stays suspended after a plain
    /// drag: one verdict says no download started after it, with the drag
    /// and the rows; the expectations it broke depend on it; and no hint
    /// names a pool left holding a cancelled entry, sixty model objects, or a
    /// failed download's operation.
    @Test func aQueueLeftSuspendedAfterADragIsOneVerdict() async throws {
        let results = await Self.check(7, SuspendedAfterDragController.self, Self.suspendedFiles)
        let failed = Self.failed(results)
        #expect(failed.map(\.title) == ["no download starts after a drag"], "\(results.rendered(exercise: 7))")
        let verdict = try #require(failed.first)
        #expect(
            verdict.diagnosis
                == "no request after the drag that ended at 5600 ms on memory-warning-then-back, nothing in flight "
                + "at the end, and 8 of 8 visible rows without their icon at the end")
        for bug in ["a memory warning frees nothing", Self.duplicate, "a failed icon is never tried again"] {
            let result = try #require(results.first { $0.bug == bug })
            #expect(result.measured.hasPrefix("not measured apart from no download starts after a drag: "))
        }
        for result in results where !result.passed {
            for cause in ["cancelled entry", "sixty model objects", "taken out of the pool"] {
                #expect(!result.hint.contains(cause), "\(result.bug): \(result.hint)")
            }
        }
    }

    /// Exercise 3 with the early return left out: every reload downloads
    /// again. The check names exercise 3's own bug, and nothing of step 7's
    /// memory warning or a method the code does not have.
    /// Its controller writes the model from download threads, as step 3 does: racy on purpose.
    @Test(.racyStepInProcess) func exerciseThreeWithoutTheEarlyReturnIsItsOwnBug() async throws {
        let results = await Self.check(3, NoEarlyReturnController.self, ["PortedNoEarlyReturn.swift"])
        let failed = Self.failed(results)
        #expect(failed.map(\.title) == ["every scroll back downloads the icons again"])
        #expect(failed.first?.measured.hasPrefix("544 repeated downloads · 572 requests for 28 icons") == true, "\(failed.first?.measured ?? "")")
        for result in results {
            #expect(!result.hint.contains("memory warning"), "\(result.bug): \(result.hint)")
            #expect(!result.hint.contains("didReceiveMemoryWarning"), "\(result.bug): \(result.hint)")
            #expect(!(result.diagnosis ?? "").contains("step 7"), "\(result.bug): \(result.diagnosis ?? "")")
        }
    }

    /// A `[weak op]` BlockOperation that checks `op.isCancelled` works: no
    /// hint may say a block cannot see its own operation.
    @Test func noHintSaysABlockCannotSeeItsOperation() {
        for bug in KnownBug.all {
            let hints = bug.text.hints
            for text in [hints.question, hints.api, bug.text.why] {
                #expect(!text.contains("cannot see its own operation"), "\(bug.name)")
            }
        }
    }

    /// Exercise 9: a loop that waits while paused rolls 0 times after the
    /// pause: the row says the operation stayed in the queue, not that the
    /// digits roll on.
    @Test func aLoopThatWaitsWhilePausedIsNotSaidToRollOn() async throws {
        let results = await LotteryChecks.check(machine: WaitWhilePausedLotteryViewController.self)
        let pause = try #require(results.first)
        #expect(!pause.passed)
        #expect(
            pause.measured
                == "0 rolls after pause · 1 operation still in the queue 1.5 story seconds later · rolling again "
                + "after resume: yes")
        #expect(pause.title == "the rolling operation stays in the queue while paused")
        #expect(!pause.hint.contains("roll on"))
        #expect(!results.rendered(exercise: 9).contains("✗ not fixed pausing does not stop the rolling"))
    }

    /// Exercise 10: flags right but never announced. The finishing row may
    /// pass (each operation says isFinished), but its title must not say the
    /// queue goes on beside a row that measured it stalled.
    @Test func aPassedFinishRowDoesNotStandBesideAStalledQueue() async throws {
        let results = await AsyncOperationChecks.check {
            FaultyDownloadOperation(fault: .silent, url: $0, network: $1, progress: $2, completion: $3)
        }
        let finishes = try #require(results.first { $0.bug == AsyncOperationChecks.finishes.name })
        let announces = try #require(results.first { $0.bug == AsyncOperationChecks.announces.name })
        #expect(finishes.passed && !announces.passed)
        #expect(announces.measured.contains("the queue still holds 4"), "\(announces.measured)")
        #expect(finishes.title == "an operation that never says it finished")
        #expect(finishes.measured == "started by hand: 4 of 4 finished")
        #expect(!results.rendered(exercise: 10).contains("✓ fixed     an operation that never finishes: the queue stalls"))
    }

    /// Exercise 10's race run is `Workbench --check 10`, which exits 1 while
    /// the exercise is not solved: the row says so, not that a loop kept the
    /// story from ending.
    @Test func anUnsolvedCheckRunIsNotCalledAStoryThatNeverEnded() {
        let why = RaceCheck.endedEarly(status: 1, errors: "", played: ["--check", "10"])
        #expect(why == "the --check 10 run exited with status 1")
        let verdict = RaceCheck.unfinished(why, errors: "", replaying: ["--check", "10"])
        #expect(!verdict.passed && !verdict.wasMeasured)
        #expect(!verdict.hint.contains("a loop that asks again"), "\(verdict.hint)")
        #expect(verdict.hint.hasPrefix("The race run plays the exercise's own checks, and they failed"))
    }
}

