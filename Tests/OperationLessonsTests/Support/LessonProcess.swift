import Foundation
import LessonKit
import Testing

/// Whether this test process was built with Thread Sanitizer. `.ci/run`'s TSan
/// leg sets OPERATION_LESSONS_TSAN=1 beside `swift test --sanitize=thread`.
enum ThreadSanitizer {
    static let isOn = ProcessInfo.processInfo.environment["OPERATION_LESSONS_TSAN"] == "1"
    /// The executables beside this test bundle are the race build (`OPERATION_LESSONS_RACE_BUILD=1`, built by
    /// `.ci/run` after the first leg's tests): Thread Sanitizer in each step's own code, not in the harness.
    static let childrenAreRaceBuilt = ProcessInfo.processInfo.environment["OPERATION_LESSONS_RACE_BUILD"] == "1"
    /// Whether the executables the tests run as children are TSan-built, wholly or in their own code.
    static var inChildren: Bool { isOn || childrenAreRaceBuilt }
}

/// Whether this is CI's run (`.ci/run` sets OPERATION_LESSONS_CI=1), which also plays the end-to-end checks that
/// plain `swift test` leaves out for their builds' cost (`endToEndBuildInCI`).
enum ContinuousIntegration {
    static let isOn = ProcessInfo.processInfo.environment["OPERATION_LESSONS_CI"] == "1"
}

extension Trait where Self == ConditionTrait {
    /// For an end-to-end `lessons check` whose cost is real workbench builds and whose verdict's logic a test of
    /// plain `swift test` asserts in process (its doc comment names that test): it runs in CI only. Plain
    /// `swift test` keeps one check that builds a real workbench and one race build (README, "Two commands").
    static var endToEndBuildInCI: Self {
        .enabled(if: ContinuousIntegration.isOn, "CI only: real workbench builds; the verdict is proven in process")
    }

    /// For the check that every code pane of the web course compiles: a `swiftc -typecheck` of each of its 30-odd
    /// intermediate states, 7 s of CPU alone, a tenth of the rest of plain `swift test`'s. CI's, with the rest of
    /// the web course's checks (`.ci/run`: its first leg plays this, its site leg the pages in a browser).
    static var webCourseCompileInCI: Self {
        .enabled(if: ContinuousIntegration.isOn, "CI only: compiles every code pane of the web course")
    }

    /// For a test that plays a deliberately racy step (3 and 4 write shared
    /// state from download threads; exercise 11's start shares a class between
    /// tasks; the blogs' `AsyncOperation` keeps its state with no lock) in this process. Under Thread Sanitizer its
    /// race would be reported against the whole test run (TSan makes `swift test`
    /// exit 1), so the TSan leg skips it; `ThreadSanitizerTests` checks the race
    /// in a child process instead.
    static var racyStepInProcess: Self {
        .disabled(
            if: ThreadSanitizer.isOn,
            "plays deliberately racy code in-process, which Thread Sanitizer would report against the whole run")
    }

    /// For a test that plays a deliberately racy step as a child process and
    /// needs its whole run: TSan-built, the step ends with status 66 on its
    /// race report, or crashes when the race strikes. The test runs in the
    /// suite's first leg; the TSan leg checks the race itself in
    /// `ThreadSanitizerTests`.
    static var racyStepAsChild: Self {
        .disabled(
            if: ThreadSanitizer.isOn,
            "plays a deliberately racy step as a child; the TSan leg checks its race in ThreadSanitizerTests")
    }
}

/// One run of a lesson executable as a child process, the way a learner runs it.
struct LessonRun {
    let status: Int32
    /// Killed by a signal (a crash) rather than exiting, or, under Thread
    /// Sanitizer, ended by one that TSan caught.
    let crashed: Bool
    let output: String
    let errors: String

    /// Ran to its end and printed its report: exit status 0, or in the TSan
    /// leg 66, Thread Sanitizer's status after a report (steps 3 and 4 race on
    /// purpose, offline too: they write nil into the cache from download
    /// threads; the JSON is still whole).
    var finished: Bool {
        !crashed && (status == 0 || (ThreadSanitizer.inChildren && status == 66))
    }

    /// The `--json` report the run printed.
    func report() throws -> Report {
        try Report.decoded(from: Data(output.utf8))
    }
}

/// Runs the lesson executables built beside this test bundle (`.build/debug`,
/// or `.build-tsan/debug` in the TSan leg, where they are TSan-built too), through `Rig.runProduct`.
///
/// Used for the deliberately racy step 4, whose dictionary written from two
/// download threads at once does not only race: it crashes the process now
/// and then. In-process, that crash would take the whole test run down; in a
/// child process it is one run to play again. Also used for the Thread
/// Sanitizer checks, which read stderr.
enum LessonProcess {
    static var buildDirectory: URL { Rig.productsDirectory }

    /// `environment` is added to this process's (after the Caches folder is set, so it can override it).
    static func run(_ target: String, _ arguments: [String], environment extra: [String: String] = [:]) async throws
        -> LessonRun
    {
        // Its own Caches folder, so no run reads what another left on disk.
        let caches = try ScratchFolder.make("lesson-run")
        defer { ScratchFolder.remove(caches) }
        let finished = try await Rig.runProduct(
            target, arguments, environment: ["XDG_CACHE_HOME": caches.path].merging(extra) { _, new in new })
        // Thread Sanitizer catches a segmentation fault itself, says so, and
        // exits with its report status, 66: a crash all the same (step 4 under
        // TSan, with no JSON printed).
        let crashed =
            finished.signal != nil
            || (ThreadSanitizer.inChildren && finished.standardError.contains("ThreadSanitizer:DEADLYSIGNAL"))
        return LessonRun(
            status: finished.signal ?? finished.status, crashed: crashed, output: finished.standardOutput,
            errors: finished.standardError)
    }

    /// The tests' one retry helper: the report of the first run that did not
    /// crash, and how many crashed before it. A run that exits with an error
    /// (not a crash) is not retried.
    static func report(_ target: String, _ arguments: [String], attempts: Int = 6) async throws -> (
        report: Report, crashes: Int
    ) {
        var crashes = 0
        while crashes < attempts {
            let run = try await run(target, arguments + ["--json"])
            if run.crashed {
                crashes += 1
                continue
            }
            guard run.finished else {
                throw LessonProcessError("\(target) exited with \(run.status): \(run.errors.suffix(2000))")
            }
            return (try run.report(), crashes)
        }
        throw LessonProcessError("\(target) \(arguments) crashed \(attempts) times in a row")
    }
}

struct LessonProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
