import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit
import Testing

@testable import Lesson07CustomOperation
@testable import Lesson10WebImage

/// Step 7 → 10: the download code replaced by a library (`WebImage`), and
/// what a library does that step 7 cannot: one download per URL shared by
/// every row that shows it, a token per caller, a wait that holds no thread,
/// the failed-URL list, a disk cache with an age and a size.
@Suite struct Lesson10Tests {
    static func run(_ controller: any LessonController.Type, _ scenario: Scenario) async -> ScenarioResult {
        await SharedRuns.shared.result(controller, scenario)
    }

    static let step7 = Lesson07CustomOperation.AppsViewController.self
    static let step10 = Lesson10WebImage.AppsViewController.self

    /// Rows 0 and 6 show one icon, which takes 3 s; row 0 scrolls away while
    /// it loads and its cell is reused. Cancelling the shared download takes
    /// the icon from row 6, still on screen; cancelling the cell's own token
    /// does not.
    @Test func aReusedCellCancelsItsOwnRequestNotTheSharedDownload() async {
        let naive = await Self.run(NaiveCancelViewController.self, .sharedIconReuse).report
        let tokens = await Self.run(Self.step10, .sharedIconReuse).report
        #expect(naive.visibleRowsAtEnd - naive.ownIconsAtEnd == 1)
        #expect(tokens.visibleRowsAtEnd - tokens.ownIconsAtEnd == 0)
        // One download for the two rows in both: the naive one cancelled it (a failed request).
        #expect(naive.requests == naive.uniqueURLs && tokens.requests == tokens.uniqueURLs)
        #expect(naive.failedRequests == 1 && tokens.failedRequests == 0)
    }

    /// Two rows on one URL, both on screen: one request, one body, and both
    /// rows show it. Step 7's pool also downloads once, but reloads only the
    /// row that started the download: the other keeps its placeholder.
    @Test func twoRowsOnOneURLShareOneDownloadAndBothShowIt() async {
        let step7 = await Self.run(Self.step7, .sharedIcon).report
        let step10 = await Self.run(Self.step10, .sharedIcon).report
        #expect(step10.requests == 7 && step10.uniqueURLs == 7)
        #expect(step10.bytes == step10.uniqueBytes)
        #expect(step10.ownIconsAtEnd == 8 && step10.visibleRowsAtEnd == 8, "both rows were told, from one download")
        #expect(step7.requests == 7 && step7.bytes == step7.uniqueBytes)
        #expect(step7.ownIconsAtEnd == 7)
    }

    /// A broken icon (its bytes never decode), shown three times: step 4
    /// reloads its row on every failure and asks again at once, over and
    /// over; step 7 asks again each time the row is shown; step 10 without
    /// `.retryFailed` never asks again; with it (the tutorial's options), as
    /// step 7.
    @Test func aFailedURLIsAskedForAgainOnlyWithRetryFailed() async throws {
        let forever = try await reportOfRacyStep(4, scenario: .brokenIcon)
        let step7 = await Self.run(Self.step7, .brokenIcon).report
        let never = await Self.run(NoRetryFailedViewController.self, .brokenIcon).report
        let retry = await Self.run(Self.step10, .brokenIcon).report
        #expect(forever.failedRequests > 6)
        #expect(step7.failedRequests == 3)
        #expect(never.failedRequests == 1)
        #expect(retry.failedRequests == 3)
        // Every other icon once, in all three.
        for report in [step7, never, retry] {
            #expect(report.uniqueURLs == report.requests - report.failedRequests + 1)
        }
    }

    /// A download in flight holds a worker thread in step 7 (a blocking
    /// fetch) and none in step 10 (an asynchronous operation waiting on a
    /// fetch that blocks nothing).
    @Test func noThreadWaitsWhileAnIconDownloads() async {
        let step7 = await Self.run(Self.step7, .standard).report
        let step10 = await Self.run(Self.step10, .standard).report
        #expect(step7.peakBlockedThreads == 3 && step7.maxInFlight == 3)
        #expect(step10.peakBlockedThreads == 0 && step10.maxInFlight == 6)
        #expect(step10.downloadQueueLimit == 6)
        // Six at once: the first screen in two rounds, its physical limit.
        #expect(step10.timeToAllVisibleMs == 1000 && step10.idealTimeToAllVisibleMs == 1000)
        #expect(step10.clockNotes.isEmpty)
    }

    /// The disk cache held to 8,000 bytes stays within it; its files, kept
    /// 5 story seconds after their last use, are too old after 10 s away, and
    /// everything is downloaded again. The default keeps them a week.
    @Test func theDiskCacheStaysWithinItsSizeAndDropsFilesPastTheirAge() async {
        let small = await Self.run(SmallDiskCacheViewController.self, .standard).report
        let usual = await Self.run(Self.step10, .standard).report
        #expect(small.diskCacheBytes <= 8000 && small.diskCacheFiles == 10)
        #expect(usual.diskCacheFiles == 17 && usual.diskCacheBytes > 8000)
        let aged = await Self.run(SmallDiskCacheViewController.self, .relaunchLater).report
        let kept = await Self.run(Self.step10, .relaunchLater).report
        #expect(aged.requestsAfterRelaunch == 8)
        #expect(kept.requestsAfterRelaunch == 0 && kept.ownIconsAtEnd == kept.visibleRowsAtEnd)
    }

    /// Memory, then disk, then network: the way back up the standard scroll
    /// asks for nothing (memory), a relaunch asks for nothing (disk), and a
    /// memory warning empties memory, not the disk.
    @Test func memoryThenDiskThenNetwork() async {
        let standard = await Self.run(Self.step10, .standard).report
        // 17 icons downloaded once each; one more download, under way at the
        // memory warning that ends the scroll, was cancelled by it.
        #expect(standard.requests == 18 && standard.failedRequests == 1 && standard.diskCacheFiles == 17)
        let relaunch = await Self.run(Self.step10, .relaunch).report
        #expect(relaunch.requests == 8 && relaunch.requestsAfterRelaunch == 0)
        #expect(relaunch.ownIconsAtEnd == relaunch.visibleRowsAtEnd)
        let warned = await Self.run(Self.step10, .memoryWarningThenScroll).report
        #expect(warned.requestsAfterMemoryWarning == 0, "the warning emptied memory, not the disk")
        #expect(warned.ownIconsAtEnd == warned.visibleRowsAtEnd)
    }

    /// Every progress report of a load rises, and the last one is the body's size.
    @Test(arguments: [Scenario.standard, .fastScrollSlowRows, .sharedIconReuse])
    func progressRisesToTheBodysSize(_ scenario: Scenario) async throws {
        let report = await Self.run(Self.step10, scenario).report
        #expect(report.progressReports > 0)
        #expect(report.progressOutOfOrder == 0)
        #expect(report.progressEndedShort == 0)
    }

    /// The library keeps every fix of steps 2-7 (the bug matrix's rows, step 10's column).
    @Test(arguments: KnownBug.all.filter { $0.fixedIn <= 7 }.map(\.name))
    func everyEarlierFixHolds(_ name: String) async throws {
        let bug = try #require(KnownBug.named(name))
        let report = await Self.run(Self.step10, bug.scenario).report
        let verdict = bug.verdict(report)
        #expect(verdict != .notMeasured && !verdict.isPresent, "\(bug.measure.name) = \(verdict)")
    }

    /// The tutorial's clean-up on a memory warning: every load cancelled, so
    /// nothing under way delivers after it, and the memory cache emptied.
    @Test func aMemoryWarningCancelsTheLoadsAndEmptiesMemory() async {
        let report = await Self.run(Self.step10, .memoryWarningMidDownload).report
        #expect(report.staleDeliveries == 0)
        #expect(report.liveImageBytes == 0)
        // As in step 7, the rows on screen lose their downloads too.
        #expect(report.ownIconsAtEnd == 0)
    }

    @Test func theControllerIsFreedWhileDownloadsRun() async {
        let report = await Self.run(Self.step10, .leaveWhileLoading).report
        #expect(report.controllerFreed)
    }

    /// Offline: one request per row shown, no loop, nothing blocked for good.
    @Test func offlineEachRowIsAskedForOnce() async {
        let report = await Self.run(Self.step10, .offlineBrowse).report
        #expect(report.requests == report.uniqueURLs)
        #expect(report.failedRequests == report.requests)
    }
}
