import Foundation
import LessonChecks
import Testing

/// The race step 5 fixes, seen by Thread Sanitizer: step 4 writes its cache
/// dictionary from download threads; steps 5–7 write it on the main queue only.
///
/// Each step runs as a child process (the TSan-built lesson executable beside
/// this TSan-built test bundle), so step 4's report is its own and cannot fail
/// the test run. Only in `.ci/run`'s TSan leg: elsewhere the executables are not
/// TSan-built and there would be nothing to read. `.ci/run` plays them in a
/// `swift test` of their own, with nothing else running: TSan sees the race
/// only when the step's threads really run at once (`RaceCheck.runs`).
@Suite(.enabled(if: ThreadSanitizer.isOn, "needs the TSan-built executables of the TSan leg (.ci/run)"))
struct ThreadSanitizerTests {
    /// The standard scroll: downloads that end at the same instant run their
    /// code at once. Exercise 5's race check plays the same.
    static let arguments = RaceCheck.arguments

    static func raceReports(in errors: String) -> [Substring] {
        RaceCheck.raceReports(in: errors)
    }

    @Test func step4WritesItsCacheFromDownloadThreads() async throws {
        var run = try await LessonProcess.run("Lesson04CacheDictionary", Self.arguments)
        // The same race can corrupt the dictionary and crash the run before TSan
        // reports it (a crash is the race too, just less legible), and a run on
        // a busy machine can miss it (RaceCheck.runs): play it again then, as
        // `lessons check 5` does.
        for _ in 1..<(RaceCheck.runs + 2) where Self.raceReports(in: run.errors).isEmpty {
            run = try await LessonProcess.run("Lesson04CacheDictionary", Self.arguments)
        }
        let reports = Self.raceReports(in: run.errors)
        #expect(
            !reports.isEmpty,
            """
            no race reported in \(RaceCheck.runs + 1) runs; the last exited \(run.status), stderr ends: \
            \(run.errors.suffix(1500)); its report: \((try? run.report().summary) ?? String(run.output.suffix(1500)))
            """
        )
        // The report points at the line that writes the dictionary from a download thread.
        let summary = run.errors.split(separator: "\n").filter { $0.hasPrefix("SUMMARY: ThreadSanitizer") }
        #expect(summary.contains { $0.contains("Lesson04CacheDictionary/AppsViewController.swift") })
        #expect(run.crashed || run.status == RaceCheck.reportedStatus)
        // Exercise 5's race check, which `lessons check 5` runs on a TSan-built workbench, sees it too.
        let verdict = RaceCheck.judge(errors: run.errors, crashed: run.crashed)
        #expect(!verdict.passed)
        #expect(verdict.measured.contains("Lesson04CacheDictionary/AppsViewController.swift"), "\(verdict.measured)")
    }

    @Test(arguments: ["Lesson05OperationPool", "Lesson06SandboxCache", "Lesson07CustomOperation"])
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
