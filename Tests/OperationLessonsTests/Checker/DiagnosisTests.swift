import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import Testing

@testable import Lesson05OperationPool
@testable import Lesson06SandboxCache
@testable import SlowNetwork

/// The checker explains a failure from what was measured, not from the bug
/// it expected: where the evidence has another bug's shape it says so and
/// gives that bug's hint; where no bug fits it makes no guess.
@Suite struct DiagnosisTests {
    /// A disk cache that names files by the URL's last path component, checked
    /// as exercise 5: row 2's first download fails, and when the row comes back
    /// the disk has another app's `icon.png` under its name. The pool is fine:
    /// the one verdict is the shared file's, said as step 6's bug, and the
    /// retry is not measured apart from it.
    @Test func anotherRowsIconFromASharedFileIsNotCalledAMissingRetry() async throws {
        let results = await ExerciseProof.imageList(5, LastComponentNamesViewController.self)
        let retry = try #require(results.first { $0.bug == "a failed icon is never tried again" })
        let collision = try #require(KnownBug.named("icons whose URLs end alike share one file on disk"))
        let verdict = try #require(results.first { !$0.passed && $0.wasMeasured && $0.title == collision.name })
        #expect(verdict.diagnosis?.contains("have URLs ending in icon.png") == true, "\(verdict.diagnosis ?? "")")
        #expect(verdict.hint == collision.text.hint + " (Step 6 is where the course comes to this bug.)")
        #expect(!retry.passed && !retry.wasMeasured)
        #expect(retry.measured.hasPrefix("not measured apart from \(collision.name): "), "\(retry.measured)")
        #expect(retry.measured.contains("with another row's icon"), "\(retry.measured)")
    }

    /// The pool as first written, checked as exercise 5: the evidence is the
    /// retry bug's own (a placeholder, not another row's icon), and so is the hint.
    @Test func aMissingRetryIsStillCalledAMissingRetry() async throws {
        let results = await ExerciseProof.imageList(5, NaivePoolViewController.self)
        let retry = try #require(results.first { $0.bug == "a failed icon is never tried again" })
        #expect(!retry.passed)
        #expect(retry.diagnosis == nil)
        #expect(retry.hint == KnownBug.named("a failed icon is never tried again")?.text.hint)
    }

    /// A report with these figures and no other.
    static func report(requests: Int, icons: Int, rows: Int, ownIcons: Int) -> Report {
        var report = Report()
        report.requests = requests
        report.uniqueURLs = icons
        report.visibleRowsAtEnd = rows
        report.ownIconsAtEnd = ownIcons
        return report
    }

    /// Every row loses its icon, and nothing else is wrong: no bug of the
    /// course looks like that, and the checker does not pretend one does.
    @Test func evidenceNoBugFitsGetsNoGuess() throws {
        let bug = try #require(KnownBug.named("a slow icon scrolled away and back is downloaded twice at once"))
        let report = Self.report(requests: 8, icons: 8, rows: 8, ownIcons: 0)
        let results = ImageListChecks.check(bug, reports: [bug.scenario.name: report], exercise: 5)
        #expect(!results.passed)
        #expect(results.diagnosis?.hasPrefix("none of the course's bugs has this shape") == true)
        #expect(results.hint != bug.text.hint)
    }

    /// A controller that cancels a download at scroll end, takes it out of its
    /// pool and later downloads that icon again has no duplicate in flight:
    /// its verdict says what was measured, icon by icon, and the hint follows
    /// that. (PortedTutorialTests plays such controllers.)
    @Test func aDownloadAgainAfterTheFirstEndedIsSaidAsMeasured() throws {
        let bug = try #require(KnownBug.named("a slow icon scrolled away and back is downloaded twice at once"))
        var report = Self.report(requests: 10, icons: 9, rows: 8, ownIcons: 8)
        let icons = (0..<9).map { "https://example.com/\($0).png" }
        var requests = icons.enumerated().map { row, icon in
            Request(
                id: row, url: icon, startMs: 0, endMs: 500, thread: Request.worker, outcome: .ok, error: nil,
                bytes: 1, isDuplicate: false)
        }
        requests[8].outcome = .failed
        requests[8].error = NetworkError.cancelled.description
        requests.append(
            Request(
                id: 9, url: icons[8], startMs: 2000, endMs: 2500, thread: Request.worker, outcome: .ok, error: nil,
                bytes: 1, isDuplicate: false))
        report.iconRequests = IconRequests(requests: requests, shownMs: [:], rowIcons: icons)
        let result = ImageListChecks.check(bug, reports: [bug.scenario.name: report], exercise: 5)
        #expect(!result.passed)
        #expect(
            result.measured == "0 duplicates in flight · 10 requests for 9 icons · 8/8 rows with their own icon at the end")
        #expect(
            result.diagnosis
                == "10 requests for 9 icons, never two of one icon at once: row 8's icon was downloaded again (at "
                + "2000 ms) after its first download was cancelled (at 500 ms)")
        #expect(result.hint.hasPrefix("Your code cancelled row 8's download while it ran"))
        #expect(!result.hint.contains("already under way"))
    }

    /// One crash costs its own verdicts: step 7 with the tutorials' assign
    /// delegate crashes whenever the controller goes while downloads still run
    /// (the user leaves; or the run ends with slow icons still loading). Each
    /// scenario in a process of its own, exercise 7's check still judges the
    /// bugs of every other scenario, and says what the crash was.
    @Test func aCrashInOneScenarioLeavesEveryOtherVerdict() async throws {
        let executable = LessonProcess.buildDirectory.appendingPathComponent("Lesson07CustomOperation")
        let results = await ImageListChecks.check(
            exercise: 7,
            run: ImageListChecks.inChildProcesses(executable, arguments: ["--assign-delegate"], root: Rig.packageRoot))
        let crashedScenarios: Set<String> = ["leave-while-loading", "fast-scroll-slow-rows"]
        for bug in ImageListChecks.bugs(exercise: 7) {
            let result = try #require(results.first { $0.bug == bug.name })
            if bug.scenarios.contains(where: { crashedScenarios.contains($0.name) }) {
                #expect(!result.passed && !result.wasMeasured, "\(bug.name)")
                #expect(result.measured.hasPrefix("not measured: your program crashed"), "\(result.measured)")
                #expect(result.diagnosis?.contains("`assign` delegate") == true, "\(result.diagnosis ?? "")")
            } else {
                #expect(result.passed, "\(bug.name): \(result.measured)")
            }
        }
        #expect(results.filter(\.passed).count >= 10)
    }

    /// Step 5's code with the cache write moved back onto the download thread
    /// (Tests/Fixtures/RecordRace, `--cache-in-operation`): its dictionary,
    /// written by three download threads at once, can crash any scenario. A
    /// crash costs only the crashed scenario's verdicts, said at the fixture's
    /// line, never the suite's; every other verdict is step 5's own (all fixed:
    /// the race itself is the Thread Sanitizer build's to see).
    @Test(.racyStepAsChild) func aRaceInTheLearnersCodeLeavesEveryOtherFixAlone() async throws {
        let executable = LessonProcess.buildDirectory.appendingPathComponent("RecordRaceFixture")
        let results = await ImageListChecks.check(
            exercise: 5,
            run: ImageListChecks.inChildProcesses(
                executable, arguments: ["--cache-in-operation"], root: Rig.packageRoot))
        #expect(results.map(\.bug) == ImageListChecks.bugs(exercise: 5).map(\.name))
        for result in results where !result.passed {
            #expect(!result.wasMeasured, "\(result.bug): \(result.measured)")
            #expect(
                result.measured.hasPrefix(
                    "not measured: your program crashed at Tests/Fixtures/RecordRace/CacheInOperationViewController.swift:"),
                "\(result.bug): \(result.measured)")
        }
    }
}
