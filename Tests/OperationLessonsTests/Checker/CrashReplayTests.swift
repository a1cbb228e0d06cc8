import Foundation
import LessonChecks
import LessonKit
import Synchronization
import Testing

/// A crashed scenario is played again; crashing again, the bugs it measures
/// are not measured, and the verdict says where the learner's program
/// crashed. The program here is a script that writes a Swift backtrace
/// through the learner's code and ends on SIGSEGV, every time.
@Suite struct CrashReplayTests {
    static let learnerFrame =
        "0 0x0000000000000001 closure #1 in Controller.tableView(_:cellForRowAt:) + 40 in Workbench at "
        + "/x/Workbench/Sources/Workbench/AppsViewController.swift:12:9"

    /// A script that counts its runs in `counter` and crashes.
    static func crashingProgram(in folder: URL, counter: URL) throws -> URL {
        let script = folder.appendingPathComponent("crashes")
        try """
            #!/bin/sh
            echo run >> '\(counter.path)'
            printf '%s\\n' '*** Program crashed: Bad pointer dereference at 0x8 ***' 'Thread 3 crashed:' \
              '\(learnerFrame)' >&2
            kill -SEGV $$
            """.write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        return script
    }

    @Test func aCrashPlayedAgainLeavesItsBugsUnmeasuredAtTheLearnersLine() async throws {
        let folder = try ScratchFolder.make("crash-replay")
        defer { ScratchFolder.remove(folder) }
        let counter = folder.appendingPathComponent("runs")
        let program = try Self.crashingProgram(in: folder, counter: counter)
        let results = await ImageListChecks.check(
            exercise: 2, run: ImageListChecks.inChildProcesses(program, root: folder))
        let runs = try String(contentsOf: counter, encoding: .utf8).split(separator: "\n").count
        #expect(runs == 2 * ImageListChecks.scenarios(exercise: 2).count, "each scenario played twice")
        #expect(!results.isEmpty)
        let place =
            "Workbench/Sources/Workbench/AppsViewController.swift:12:9 "
            + "(closure #1 in Controller.tableView(_:cellForRowAt:))"
        for result in results where result.bug != "the UI is touched off the main queue" {
            #expect(!result.wasMeasured && !result.passed, "\(result.bug)")
            #expect(result.measured == "not measured: your program crashed at \(place) (the standard run)")
        }
        #expect(!results.rendered(exercise: 2).contains("✗ not fixed"))
    }

    /// Step 5's controller with the downloaded image force-unwrapped
    /// (Tests/Fixtures/UnwrappedImage): a failed download crashes it on its
    /// own line, every time. The two scenarios with a failed download are
    /// played twice and their bugs are not measured, at that line; every other
    /// bug is judged on its run as step 5's. Not in the TSan leg: it turns the
    /// Swift backtracer off (RaceCheck.environment says why), and the line is read from the backtrace.
    @Test(.disabled(if: ThreadSanitizer.isOn, "the TSan leg runs without the Swift backtracer that names the line"))
    func aForceUnwrapInTheLearnersFileCostsOnlyItsScenariosVerdicts() async throws {
        let program = Rig.productsDirectory.appendingPathComponent("UnwrappedImageFixture")
        let narrated = Mutex<[String]>([])
        let results = await ImageListChecks.check(
            exercise: 5,
            run: ImageListChecks.inChildProcesses(program, root: Rig.packageRoot) { line in
                narrated.withLock { $0.append(line) }
            })
        let place =
            "Tests/Fixtures/UnwrappedImage/UnwrappedImageViewController.swift:76:33 "
            + "(UnwrappedImageViewController.downloadFinished(icon:image:at:))"
        let crashed = [
            "offline, a failed download asks again, forever": "offline",
            "a failed icon is never tried again": "fail-once",
        ]
        #expect(narrated.withLock { $0.filter { $0.hasPrefix("it crashed (signal 4): playing it again") } }.count == 2)
        for result in results {
            if let scenario = crashed[result.bug] {
                #expect(!result.wasMeasured && !result.passed)
                #expect(result.measured == "not measured: your program crashed at \(place) (the \(scenario) run)")
                #expect(
                    result.diagnosis
                        == "Fatal error: Unexpectedly found nil while unwrapping an Optional value · a force unwrap "
                        + "(`!`) of a value that was nil")
                #expect(result.hint == "Unwrap with `if let` or `guard let` instead of `!`.")
            } else {
                #expect(result.passed && result.wasMeasured, "\(result.bug): \(result.measured)")
            }
        }
        #expect(results.filter { !$0.wasMeasured }.count == crashed.count)
        #expect(
            results.summary(exercise: 5)
                == "Exercise 5 not solved yet: 2 of 4 bugs fixed; not measured: offline, a failed download asks "
                + "again, forever, a failed icon is never tried again.\nMore help: swift run lessons hint 5")
    }
}
