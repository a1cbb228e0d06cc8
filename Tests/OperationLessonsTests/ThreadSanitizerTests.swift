import Foundation
import LessonChecks
import Testing

/// The race step 5 fixes, seen by Thread Sanitizer: step 4 writes its cache
/// dictionary from download threads; steps 5–7 write it on the main queue only,
/// and step 10's library guards everything it shares with a lock.
///
/// Each step runs as a child process (the TSan-built lesson executable beside
/// this TSan-built test bundle), so step 4's report is its own and cannot fail
/// the test run. Only in `.ci/run`'s TSan leg: elsewhere the executables are not
/// TSan-built and there would be nothing to read. With the harness's locks out
/// of TSan's sight, step 4's race shows in the first run (`RaceCheck.runs`).
@Suite(.enabled(if: ThreadSanitizer.isOn, "needs the TSan-built executables of the TSan leg (.ci/run)"))
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
        // What raced is the cache its own hint points at: that hint, and TSan's two places in step 4's file.
        #expect(verdict.hint == RaceReportTests.cacheHint)
        if !RaceCheck.raceReports(in: run.errors).isEmpty {
            let seen = try #require(verdict.diagnosis)
            #expect(seen.hasPrefix("`imageCache` "), "\(seen)")
            #expect(
                seen.components(separatedBy: " at Sources/Lesson04CacheDictionary/AppsViewController.swift:").count
                    == 3, "\(seen)")
        }
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
                == "1 Thread Sanitizer report (first: Tests/Fixtures/RecordRace/RecordViewController.swift:107:23)",
            "\(run.errors.suffix(3000))")
        // What raced, said of this code: the record's `state`, on the main queue against an operation's thread.
        let thread = try #require(
            run.errors.firstMatch(of: #/Previous write of size 1 at 0x[0-9a-f]+ by (thread T\d+)/#)?.1)
        let mainQueue = try #require(run.errors.firstMatch(of: #/  Read of size 1 at 0x[0-9a-f]+ by (thread T\d+)/#)?.1)
        #expect(verdict.diagnosis == RaceReportTests.recordDiagnosis(mainQueue: mainQueue, download: thread))
        #expect(verdict.hint == RaceReportTests.recordHint)
    }

    /// A published tutorial's controller (Tests/Fixtures/RecordRace) writes its
    /// model record's `image` and `state` on its download thread while
    /// `cellForRowAt` reads them on the main queue. TSan does not report it yet:
    /// the main queue's read comes seconds of harness work before the write,
    /// and TSan keeps only the last few tens of thousands of events of a
    /// thread (docs/architecture.md, "The race run").
    @Test func aModelRecordWrittenOnTheDownloadThreadIsReported() async throws {
        let run = try await LessonProcess.run("RecordRaceFixture", Self.arguments)
        #expect((try? run.report()) != nil, "\(run.errors.suffix(1500))")
        withKnownIssue("TSan forgets the main queue's read before the download writes (issue 24)") {
            let verdict = RaceCheck.judge(errors: run.errors, crashed: run.crashed)
            #expect(!verdict.passed)
            #expect(verdict.measured.contains("(first: Tests/Fixtures/RecordRace/RecordViewController.swift:"))
        }
    }

    /// A TSan report, or a crash, at the line of step 4 that writes the cache.
    static func showsTheRace(_ run: LessonRun) -> Bool {
        let line = "Lesson04CacheDictionary/AppsViewController.swift"
        let summary = run.errors.split(separator: "\n").filter { $0.hasPrefix("SUMMARY: ThreadSanitizer") }
        let reported = !Self.raceReports(in: run.errors).isEmpty && summary.contains { $0.contains(line) }
        let crashedThere = run.crashed && run.errors.contains(line)
        return reported || crashedThere
    }

    @Test(arguments: ["Lesson05OperationPool", "Lesson06SandboxCache", "Lesson07CustomOperation", "Lesson10WebImage"])
    func fixedStepsReportNoRace(target: String) async throws {
        for scenario in ["fast-scroll-slow-rows", "memory-warning-mid-download"] {
            let run = try await LessonProcess.run(target, ["--scenario", scenario, "--json"])
            #expect(!run.crashed)
            #expect(run.status == 0)
            #expect(!run.errors.contains("ThreadSanitizer"), "\(target) \(scenario): \(run.errors.prefix(3000))")
            #expect(try run.report().requests > 0)
            #expect(RaceCheck.judge(errors: run.errors, crashed: run.crashed).passed)
        }
    }
}
