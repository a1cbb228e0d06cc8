import Foundation
import LessonChecks
import LessonKit
import Testing

/// The race step 5 fixes, seen by Thread Sanitizer: step 4 writes its cache
/// dictionary from download threads; steps 5–7 write it on the main queue only,
/// and step 10's library guards everything it shares with a lock.
///
/// Each step runs as a child process, the race build `lessons check` makes of a
/// workbench: Thread Sanitizer in the step's own code, none in the harness it
/// links (`OPERATION_LESSONS_RACE_BUILD=1`; `.ci/run` builds these executables
/// so after its first leg's tests and runs this suite against them). Step 4's
/// report is its own child's and cannot fail the test run. Elsewhere the
/// executables are not TSan-built and there would be nothing to read.
@Suite(
    .enabled(
        if: ThreadSanitizer.childrenAreRaceBuilt,
        "needs the race-built executables of .ci/run (OPERATION_LESSONS_RACE_BUILD=1)"))
struct ThreadSanitizerTests {
    /// Exercise 5's race check plays the same.
    static let arguments = RaceCheck.arguments

    static func raceReports(in errors: String) -> [Substring] {
        RaceCheck.raceReports(in: errors)
    }

    @Test func step4WritesItsCacheFromDownloadThreads() async throws {
        // The race shows as TSan's report, or as the crash it causes when two
        // threads write the dictionary at once (the report then may not come
        // first): either names step 4's line that writes it. In the first run:
        // the clock's lock no longer orders the downloads that end together.
        let run = try await LessonProcess.run("Lesson04CacheDictionary", Self.arguments)
        #expect(
            Self.showsTheRace(run),
            """
            no race shown; the run exited \(run.status), stderr ends: \(run.errors.suffix(1500)); \
            its report: \((try? run.report().summary) ?? String(run.output.suffix(1500)))
            """
        )
        #expect(run.crashed || run.status == RaceCheck.reportedStatus)
        // Exercise 5's race check, which `lessons check 5` runs on a TSan-built workbench, sees it too.
        let code = LearnerCode.read(Rig.packageRoot.appendingPathComponent("Sources/Lesson04CacheDictionary"))
        let verdict = RaceCheck.judge(errors: run.errors, crashed: run.crashed, code: code)
        #expect(!verdict.passed)
        guard !RaceCheck.raceReports(in: run.errors).isEmpty else {
            // A crash with no report before it: the race is not measured, at the line it crashed.
            return #expect(!verdict.wasMeasured && verdict.measured.contains("crashed"), "\(verdict.measured)")
        }
        // TSan's two places in step 4's file. The first report is two downloads writing the cache at once, or,
        // with the harness out of the race build, a download's write against the main queue's read in
        // `cellForRowAt`: either way the cache its own hint points at is named.
        let seen = try #require(verdict.diagnosis)
        let places = seen.components(separatedBy: " at Sources/Lesson04CacheDictionary/AppsViewController.swift:")
        #expect(places.count == 3, "\(seen)")
        let lines = places.dropFirst().map { $0.prefix { $0 != "," && $0 != " " } }
        #expect([["51:39", "51:39"], ["42:9", "51:39"]].contains(lines.sorted()), "\(seen)")
        // The read in `cellForRowAt` is the main queue's, in a turn or in a `reloadRows` the app queued there.
        if lines.contains("42:9") { #expect(seen.contains(" read on the main queue (thread T"), "\(seen)") }
        #expect(seen.hasPrefix("`imageCache` (of an `AppsViewController`) "), "\(seen)")
        // The write is a download's, in its `BlockOperation`.
        #expect(seen.contains(", in an operation, at Sources/Lesson04CacheDictionary/AppsViewController.swift:51:39"))
        #expect(verdict.hint == RaceReportTests.cacheHint)
    }

    /// The same controller whose download marks its record `.downloading`
    /// before it fetches, on the download thread, while the main queue reads the
    /// record in `cellForRowAt` during the fetch: no order of the app's between
    /// them. Seen once the harness's locks are out of TSan's sight.
    @Test func aModelRecordMarkedOnTheDownloadThreadIsReported() async throws {
        let run = try await LessonProcess.run("RecordRaceFixture", ["--marks-downloading"] + Self.arguments)
        let code = LearnerCode.read(Rig.packageRoot.appendingPathComponent("Tests/Fixtures/RecordRace"))
        let verdict = RaceCheck.judge(errors: run.errors, crashed: run.crashed, code: code)
        #expect(verdict.bug == "the cache is written from download threads (a data race)")
        #expect(verdict.shape == RaceReportTests.recordTitle)
        #expect(!verdict.passed)
        #expect(
            verdict.measured
                == "2 Thread Sanitizer reports (first: Tests/Fixtures/RecordRace/RecordViewController.swift:107:23)",
            "\(run.errors.suffix(3000))")
        // What raced, said of this code: the record's `state`, on the main queue against an operation's thread.
        let thread = try #require(
            run.errors.firstMatch(of: #/Previous write of size 1 at 0x[0-9a-f]+ by (thread T\d+)/#)?.1)
        let mainQueue = try #require(run.errors.firstMatch(of: #/  Read of size 1 at 0x[0-9a-f]+ by (thread T\d+)/#)?.1)
        #expect(verdict.diagnosis == RaceReportTests.recordDiagnosis(mainQueue: mainQueue, download: thread))
        #expect(verdict.hint == RaceReportTests.recordHint)
    }

    /// Step 5 with the cache written in the operation (`--cache-in-operation`):
    /// three downloads write the dictionary as they end together, one on each
    /// thread. Seen in every run once decoding an image no longer passes the
    /// Swift runtime's process-wide `once` that the main queue passes too.
    @Test func theCacheWrittenInTheOperationIsReported() async throws {
        let run = try await LessonProcess.run("RecordRaceFixture", ["--cache-in-operation"] + Self.arguments)
        let code = LearnerCode.read(Rig.packageRoot.appendingPathComponent("Tests/Fixtures/RecordRace"))
        let verdict = RaceCheck.judge(errors: run.errors, crashed: run.crashed, code: code)
        #expect(!verdict.passed)
        #expect(verdict.measured.contains(/^\d+ Thread Sanitizer reports?/), "\(run.errors.suffix(3000))")
        // What raced: the dictionary the operation writes, at its line.
        let seen = try #require(verdict.diagnosis, "\(run.errors.suffix(3000))")
        #expect(seen.contains(" at Tests/Fixtures/RecordRace/CacheInOperationViewController.swift:58:40"), "\(seen)")
    }

    /// A published tutorial's controller (Tests/Fixtures/RecordRace) writes its
    /// model record's `image` and `state` on its download thread as the download
    /// ends, while `cellForRowAt` reads them on the main queue, seconds before;
    /// one download at a time, so the only race is the main queue against the
    /// download thread. Seen once the harness's turns of the main queue no longer
    /// fill TSan's short history of it (docs/architecture.md, "The race run").
    @Test func aModelRecordWrittenOnTheDownloadThreadIsReported() async throws {
        let run = try await LessonProcess.run("RecordRaceFixture", Self.arguments)
        #expect((try? run.report()) != nil, "\(run.errors.suffix(1500))")
        let code = LearnerCode.read(Rig.packageRoot.appendingPathComponent("Tests/Fixtures/RecordRace"))
        let verdict = RaceCheck.judge(errors: run.errors, crashed: run.crashed, code: code)
        #expect(verdict.bug == "the cache is written from download threads (a data race)")
        #expect(!verdict.passed)
        #expect(verdict.shape == "a data race on `record.image` (of an `IconRecord`)")
        #expect(
            verdict.measured
                == "3 Thread Sanitizer reports (first: Tests/Fixtures/RecordRace/RecordViewController.swift:61:26)",
            "\(run.errors.suffix(3000))")
        // What raced, said of this code: the record's `image`, written by an operation's thread as its download
        // ends, against the main queue's read in `cellForRowAt`.
        #expect(verdict.diagnosis == (try Self.recordImageRace(in: run)))
        #expect(
            verdict.hint
                == "On which queue does your code write `record.image`, and on which does it read it? Touch it from "
                + "one queue only (hand the result to the main queue, and write it there). Look at "
                + "RecordViewController.swift:61:26 (`ImageDownloader.main(…)`) and RecordViewController.swift:106:39 "
                + "(`RecordViewController.tableView(…)`).")
    }

    /// The same tutorial's controller whole (`--loads-at-rest`, as Kodeco's
    /// ClassicPhotos): its queue suspended while the user scrolls, downloads
    /// started and off-screen ones cancelled only when the table rests. Its own
    /// calls to the queue then order every read `fast-scroll-slow-rows` makes
    /// after the writes it could race with; the race run's peeks bring back
    /// rows whose downloads run, within one gesture, and the race is seen.
    @Test func aModelRecordOfATableThatLoadsAtRestIsReported() async throws {
        let code = LearnerCode.read(Rig.packageRoot.appendingPathComponent("Tests/Fixtures/RecordRace"))
        let flicks = try await LessonProcess.run(
            "RecordRaceFixture", ["--loads-at-rest", "--scenario", "fast-scroll-slow-rows", "--json"])
        #expect(flicks.status == 0 && Self.raceReports(in: flicks.errors).isEmpty, "\(flicks.errors.suffix(1500))")

        let run = try await LessonProcess.run("RecordRaceFixture", ["--loads-at-rest"] + Self.arguments)
        let verdict = RaceCheck.judge(errors: run.errors, crashed: run.crashed, code: code)
        #expect(!verdict.passed)
        #expect(verdict.shape == "a data race on `record.image` (of an `IconRecord`)", "\(run.errors.suffix(3000))")
        // How many distinct reports the sanitizer writes here depends on the interleavings the run met (2 in
        // most runs, 3 in CI10's race leg); the verdict says this run's own count, and where the first one is.
        let reports = Self.raceReports(in: run.errors).count
        #expect(reports >= 1, "\(run.errors.suffix(3000))")
        #expect(verdict.measured.hasPrefix("\(reports) Thread Sanitizer report"), "\(verdict.measured)")
        #expect(
            verdict.measured.hasSuffix("(first: Tests/Fixtures/RecordRace/RecordViewController.swift:61:26)"),
            "\(verdict.measured)")
        #expect(verdict.diagnosis == (try Self.recordImageRace(in: run)))
    }

    /// The blogs' `AsyncOperation` (Tests/Fixtures/BlogOperation) keeps its
    /// state in a plain property: exercise 10's checks pass it, and its race
    /// run sees a queue's thread read `isExecuting` while the download's
    /// thread sets the state. The step's own operation, with its lock, is clean.
    @Test func theBlogsLocklessOperationIsReportedByExercise10sRaceRun() async throws {
        let arguments = RaceCheck.checkArguments(exercise: 10)
        let run = try await LessonProcess.run("BlogOperationFixture", arguments, environment: RaceCheck.environment)
        #expect(run.status == RaceCheck.reportedStatus, "\(run.errors.suffix(1500))")
        #expect(run.output.contains("Exercise 10: 3 of 3 bugs fixed, nothing broken on the way"), "\(run.output.suffix(500))")
        let code = LearnerCode.read(Rig.packageRoot.appendingPathComponent("Tests/Fixtures/BlogOperation"))
        let verdict = RaceCheck.judge(
            errors: run.errors, crashed: run.crashed, code: code, of: .operation)
        #expect(!verdict.passed && verdict.wasMeasured)
        #expect(verdict.shape == "a data race on `state` (of a `BlogDownloadOperation`)", "\(run.errors.suffix(3000))")
        let seen = try #require(verdict.diagnosis)
        #expect(seen.hasPrefix("`state` (of a `BlogDownloadOperation`) "), "\(seen)")
        #expect(seen.contains(" at Tests/Fixtures/BlogOperation/PortedAsyncOperation.swift:"), "\(seen)")
        #expect(verdict.bug == RaceCheck.operationBug.name && verdict.isSafeguard)
        #expect(verdict.hint.contains(RaceCheck.operationRemedy))
    }

    /// Step 5's controller with the downloaded image force-unwrapped
    /// (Tests/Fixtures/UnwrappedImage), offline: its first failed download
    /// traps on its own line. Run as the race check runs it, TSan catches the
    /// trap and names that line: the race is not measured, at the learner's line.
    @Test func aForceUnwrapInTheRaceRunIsSaidAtTheLearnersLine() async throws {
        let run = try await LessonProcess.run(
            "UnwrappedImageFixture", ["--scenario", "offline", "--json"], environment: RaceCheck.environment)
        let code = LearnerCode.read(Rig.packageRoot.appendingPathComponent("Tests/Fixtures/UnwrappedImage"))
        let verdict = RaceCheck.judge(errors: run.errors, crashed: run.crashed, code: code)
        #expect(run.crashed && run.status == RaceCheck.reportedStatus, "exited \(run.status)")
        #expect(!verdict.passed && !verdict.wasMeasured)
        #expect(
            verdict.measured
                == "not measured: your program crashed at "
                + "Tests/Fixtures/UnwrappedImage/UnwrappedImageViewController.swift:76:33 (the Thread Sanitizer run)",
            "\(run.errors.suffix(2000))")
        #expect(verdict.hint == "Unwrap with `if let` or `guard let` instead of `!`.")
    }

    /// What `RaceCheck` says of the record fixture's `image`, written by an
    /// operation's thread as its download ends and read on the main queue in
    /// `cellForRowAt`, with the two threads `run`'s report names.
    static func recordImageRace(in run: LessonRun) throws -> String {
        let download = try #require(
            run.errors.firstMatch(of: #/  Write of size 8 at 0x[0-9a-f]+ by (thread T\d+)/#)?.1)
        let mainQueue = try #require(
            run.errors.firstMatch(of: #/Previous read of size 8 at 0x[0-9a-f]+ by (thread T\d+)/#)?.1)
        return "`record.image` (of an `IconRecord`) written by \(download), in an operation, at "
            + "Tests/Fixtures/RecordRace/RecordViewController.swift:61:26 and read on the main queue (\(mainQueue)) "
            + "at Tests/Fixtures/RecordRace/RecordViewController.swift:106:39, with nothing ordering the two"
    }

    /// A TSan report, or a crash, in step 4's file. (A Swift access race's
    /// summary names the compiler-generated accessor, not the file: the
    /// file is in the report's frames.)
    static func showsTheRace(_ run: LessonRun) -> Bool {
        let file = "Sources/Lesson04CacheDictionary/AppsViewController.swift:"
        return (run.crashed || !Self.raceReports(in: run.errors).isEmpty) && run.errors.contains(file)
    }

    /// Played as `lessons check` plays a learner's code: its runs one after another in one Caches folder (the
    /// workbench's), then `memory-warning-mid-download` there too. Each run starts from an empty disk cache
    /// (`RaceCheck.arguments`) and downloads while the main queue reads: an earlier run's icons on disk would be
    /// shown without a download, and a clean verdict then proves nothing.
    @Test(arguments: ["Lesson05OperationPool", "Lesson06SandboxCache", "Lesson07CustomOperation", "Lesson10WebImage"])
    func fixedStepsReportNoRace(target: String) async throws {
        let caches = try ScratchFolder.make("race-runs")
        defer { ScratchFolder.remove(caches) }
        var memoryWarning = Self.arguments
        memoryWarning[1] = "memory-warning-mid-download"
        for arguments in Array(repeating: Self.arguments, count: RaceCheck.runs) + [memoryWarning] {
            let run = try await LessonProcess.run(
                target, arguments,
                environment: RaceCheck.environment.merging(["XDG_CACHE_HOME": caches.path]) { $1 })
            let played = "\(target) \(arguments[1])"
            #expect(!run.crashed)
            #expect(run.status == 0)
            #expect(!run.errors.contains("ThreadSanitizer"), "\(played): \(run.errors.prefix(3000))")
            // Cold, and downloading: no icon on disk at the start, as many requests as icons on disk or on screen
            // at the end.
            let report = try run.report()
            #expect(report.diskCacheFilesAtStart == 0, "\(played)")
            #expect(report.requests > 0, "\(played)")
            #expect(report.requests >= max(report.diskCacheFiles, report.ownIconsAtEnd), "\(played)")
            #expect(RaceCheck.judge(errors: run.errors, crashed: run.crashed).passed)
        }
    }
}
