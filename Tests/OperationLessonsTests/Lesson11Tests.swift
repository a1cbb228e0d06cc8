import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit
import Testing

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
    /// source the story moves on while jobs are still queued: 3 requests,
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
}
