import Foundation
import LessonChecks
import LessonKit
import Synchronization
import Testing

/// The end of a story fails nothing the app would not have seen fail: the
/// requests in flight when it ends get the answers they were due, at their
/// time, and only then is the network shut down. The program is step 3's
/// controller `assert`ing on each download's result
/// (Tests/Fixtures/AssertedDownload): where a download fails it crashes, as
/// it would on a device; where none fails, no verdict may say it crashed.
/// Not in the TSan leg: it turns the Swift backtracer off (RaceCheck.environment says why), and the line is read
/// from the backtrace.
@Suite(.disabled(if: ThreadSanitizer.isOn, "the TSan leg runs without the Swift backtracer that names the line"))
struct EndOfStoryTests {
    static let program = Rig.productsDirectory.appendingPathComponent("AssertedDownloadFixture")

    @Test func aControllerThatAssertsOnItsDownloadsHasNoCrashVerdictWhereNoneFails() async throws {
        let narrated = Mutex<[String]>([])
        let results = await ImageListChecks.check(
            exercise: 3,
            run: ImageListChecks.inChildProcesses(Self.program, root: Rig.packageRoot) { line in
                narrated.withLock { $0.append(line) }
            })
        #expect(!results.isEmpty)
        for result in results {
            #expect(result.wasMeasured, "\(result.bug): \(result.measured)")
            #expect(!result.measured.contains("crashed"), "\(result.bug): \(result.measured)")
        }
        // A crash after the story is said as that: on fast-scroll-slow-rows, queued downloads still waiting for
        // one of the story's two threads when the app's process ends (`answersAfterTheStory`) fail there.
        for line in narrated.withLock({ $0 }) where line.contains("crashed") {
            #expect(line.hasPrefix("it crashed after the story ended, which no verdict counts: "), "\(line)")
        }
    }

    /// The `assert` is live: offline, every download fails, and the program
    /// crashes during the story, at its line, before any report is handed over.
    @Test func theSameControllerCrashesAtItsAssertWhereADownloadFails() async throws {
        let run = try await LessonProcess.run("AssertedDownloadFixture", ["--scenario", "offline", "--json"])
        #expect(run.crashed)
        #expect(run.output.isEmpty)
        let diagnosis = CrashDiagnosis(errors: run.errors, signal: run.status, root: Rig.packageRoot)
        #expect(diagnosis.place?.hasPrefix("Tests/Fixtures/AssertedDownload/AppsViewController.swift:61:") == true)
    }

    /// The harness takes the screen away at every story's end: a controller
    /// whose `deinit` crashes there (Tests/Fixtures/TeardownCrash) crashed
    /// after the story, and its report, handed over for that moment, is judged.
    @Test func aCrashInTheControllersTeardownIsSaidAsAfterTheStory() async throws {
        let program = Rig.productsDirectory.appendingPathComponent("TeardownCrashFixture")
        let narrated = Mutex<[String]>([])
        let run = ImageListChecks.inChildProcesses(program, root: Rig.packageRoot) { line in
            narrated.withLock { $0.append(line) }
        }
        let judged = try await run(.standard)
        #expect(judged.scenario == "standard" && judged.controllerFreed && judged.cellsCreated > 0)
        let crashes = narrated.withLock { $0 }.filter { $0.contains("crashed") }
        #expect(crashes.count == 1, "\(crashes)")
        #expect(
            crashes.allSatisfy {
                $0.hasPrefix("it crashed after the story ended, which no verdict counts: ")
                    && $0.contains("Tests/Fixtures/TeardownCrash/AppsViewController.swift")
            }, "\(crashes)")
    }

    /// A crash once the report is handed over is said as after the story,
    /// and costs no verdict: the report handed over is judged.
    @Test func aCrashAfterTheReportIsHandedOverIsSaidAsAfterTheStory() async throws {
        let folder = try ScratchFolder.make("after-the-story")
        defer { ScratchFolder.remove(folder) }
        let report = folder.appendingPathComponent("report.json")
        var played = Report()
        played.scenario = "standard"
        try Data(played.json().utf8).write(to: report)
        // Hands a report over (the one written above), then crashes through the learner's line.
        let script = folder.appendingPathComponent("crashes-after")
        try """
            #!/bin/sh
            cat '\(report.path)' > "$OPERATION_LESSONS_REPORT_FILE"
            printf '%s\\n' '*** Program crashed: Bad pointer dereference at 0x8 ***' 'Thread 3 crashed:' \
              '\(CrashReplayTests.learnerFrame)' >&2
            kill -SEGV $$
            """.write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let narrated = Mutex<[String]>([])
        let run = ImageListChecks.inChildProcesses(script, root: folder) { line in narrated.withLock { $0.append(line) } }
        let judged = try await run(.standard)
        #expect(judged == played)
        #expect(
            narrated.withLock { $0 }
                == [
                    "it crashed after the story ended, which no verdict counts: your program crashed at "
                        + "Workbench/Sources/Workbench/AppsViewController.swift:12:9 "
                        + "(closure #1 in Controller.tableView(_:cellForRowAt:))"
                ])
    }
}
