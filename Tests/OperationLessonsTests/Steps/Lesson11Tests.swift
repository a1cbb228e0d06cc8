import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit
import Testing
import WebImage

@testable import Lesson10WebImage
@testable import Lesson11SwiftConcurrency

/// Step 10 → 11: the same app in Swift concurrency. An actor owns the
/// memory cache and the downloads in flight, each load is a task, and the
/// story clock sees every job of theirs through the runtime's enqueue hook
/// (`SwiftTaskActivity`), with no measuring code in the step.
@Suite struct Lesson11Tests {
    static func run(_ controller: any LessonController.Type, _ scenario: Scenario) async -> ScenarioResult {
        await SharedRuns.shared.result(controller, scenario)
    }

    static let step10 = Lesson10WebImage.AppsViewController.self
    static let step11 = Lesson11SwiftConcurrency.AppsViewController.self

    /// Every fix of steps 2–10 holds (the bug matrix's rows, step 11's column).
    @Test(arguments: KnownBug.all.map(\.name))
    func everyEarlierFixHolds(_ name: String) async throws {
        let bug = try #require(KnownBug.named(name))
        let report = await Self.run(Self.step11, bug.scenario).report
        let verdict = bug.verdict(report)
        #expect(verdict != .notMeasured && !verdict.isPresent, "\(bug.measure.name) = \(verdict)")
    }

    /// A download suspends its task on the network: no thread waits, six
    /// downloads at once (the loader's limit), the first screen of eight rows
    /// in ceil(8 / 6) rounds of 500 ms, its physical limit. Without the task
    /// source the story moves on while jobs are still queued: 6 requests,
    /// started while the user scrolls, and no icon at the end.
    @Test func noThreadWaitsAndTheFirstScreenIsAtItsLimit() async {
        let report = await Self.run(Self.step11, .standard).report
        #expect(report.peakBlockedThreads == 0 && report.maxInFlight == 6)
        #expect(report.timeToAllVisibleMs == 1000 && report.idealTimeToAllVisibleMs == 1000)
        #expect(report.requests == 18 && report.duplicateRequests == 0 && report.requestsStartedWhileScrolling == 0)
        #expect(report.ownIconsAtEnd == 8)
    }

    /// Rows 0 and 6 share a 3 s icon; row 0's cell is reused while it loads.
    /// The reused cell's task leaves the download; row 6 still waits for it,
    /// so it goes on: one request, no failure, both rows shown.
    @Test func aReusedCellLeavesTheSharedDownloadToTheRowStillWaiting() async {
        let report = await Self.run(Self.step11, .sharedIconReuse).report
        #expect(report.ownIconsAtEnd == report.visibleRowsAtEnd)
        #expect(report.requests == report.uniqueURLs && report.failedRequests == 0)
    }

    /// A memory warning mid-download cancels the loads and the downloads (they
    /// end as cancelled requests, and deliver nothing), and empties memory.
    @Test func aMemoryWarningCancelsTheDownloadsAndEmptiesMemory() async {
        let report = await Self.run(Self.step11, .memoryWarningMidDownload).report
        #expect(report.requestsAfterMemoryWarning == 0 && report.staleDeliveries == 0)
        #expect(report.failedRequests == 6, "the six downloads under way, cancelled")
        let then = await Self.run(Self.step11, .memoryWarningThenScroll).report
        #expect(then.liveImageBytes == 0)
    }

    /// The same figures as step 10 where the limit does not matter: a relaunch
    /// reads every icon from step 10's disk cache.
    @Test func aRelaunchReadsTheDiskCache() async {
        let report = await Self.run(Self.step11, .relaunch).report
        #expect(report.requestsAfterRelaunch == 0 && report.ownIconsAtEnd == 8)
        #expect(report.controllerFreed)
    }

    /// The loader on its own, outside a scenario, so its tasks run free on
    /// the pool's real threads (the story runs them on one; see
    /// docs/architecture.md, "Swift tasks"): 200 callers over 10 URLs at
    /// once, then 200 more of which every other one gives up as it asks.
    /// One request per URL the first time; the second, every caller that
    /// stayed gets its icon and no download runs twice at once, however the
    /// threads interleave. What a Thread Sanitizer build checks of step 11.
    /// The time limit is a hang guard: it also counts the wait for the
    /// scenario gate, behind every other test's runs.
    @Test(.timeLimit(.minutes(10)), arguments: [false, true])
    func manyCallersOnRealThreadsShareOneDownloadPerURL(halfCancel: Bool) async throws {
        await ExclusiveRun.run { _ in
            let network = WebRig.network(latency: 0.05)
            let folder = WebRig.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let loader = IconLoader(network: network, disk: DiskCache(directory: folder, fileExtension: "ppm"))
            let icons = Array(WebRig.icons.prefix(10))
            let shown = await withTaskGroup(of: Bool?.self) { group in
                for caller in 0..<200 {
                    group.addTask {
                        let load = Task { try await loader.image(for: icons[caller / 2 % icons.count]) }
                        if halfCancel && caller % 2 == 1 {
                            load.cancel()
                            return nil
                        }
                        return (try? await load.value) != nil
                    }
                }
                return await group.reduce(into: [Bool]()) { if let shown = $1 { $0.append(shown) } }
            }
            #expect(shown.count == (halfCancel ? 100 : 200) && shown.allSatisfy { $0 }, "every caller left got its icon")
            let log = network.log
            #expect(log.uniqueURLs == 10 && log.duplicateRequests == 0)
            if !halfCancel { #expect(log.count == 10, "one request per URL") }
            network.shutdown()
        }
    }

    /// A toolchain whose runtime no longer calls the hook: a library loaded
    /// first (`LD_PRELOAD`) that defines a variable of the hook's name is
    /// what `dlsym` finds, and the runtime never reads it. The step refuses
    /// at its start (the toolchain contract's `task-hook` probe), says why in
    /// one sentence, and exits 1, printing no figures. (Not in the Thread Sanitizer leg: a
    /// library preloaded before TSan's runtime is a different experiment.)
    @Test(.disabled(if: ThreadSanitizer.isOn)) func aRuntimeThatNeverCallsTheHookIsRefused() async throws {
        let folder = try ScratchFolder.make("fake-hook")
        defer { ScratchFolder.remove(folder) }
        let source = folder.appendingPathComponent("fake.c")
        let library = folder.appendingPathComponent("fake.so")
        try Data("void *swift_task_enqueueGlobal_hook = 0;\n".utf8).write(to: source)
        let compiled = try await ChildProcess(command: ["clang", "-shared", "-fPIC", "-o", library.path, source.path])
            .finished(watchdog: Watchdog(limit: .seconds(60)))
        try #require(compiled.status == 0, "\(compiled.errors)")
        let run = try await LessonProcess.run(
            "Lesson11SwiftConcurrency", ["--json"], environment: ["LD_PRELOAD": library.path])
        #expect(run.status == 1 && !run.crashed)
        #expect(run.errors.contains("(task-hook: the hook is exported but not called for a new task)"))
        #expect(run.output.isEmpty)
    }
}
