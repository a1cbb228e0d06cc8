import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import SlowNetwork
import Testing

@testable import Lesson04CacheDictionary
@testable import Lesson05OperationPool

/// Step 4 → 5: each bug the operation pool fixes, shown in step 4 (or in the
/// naive pool) and gone in step 5, on the same scenario. Step 4 runs as a child
/// process where its race could crash it (see `LessonProcess`).
@Suite struct Lesson05Tests {
    static func run(_ controller: any LessonController.Type, _ scenario: Scenario) async -> ScenarioResult {
        await SharedRuns.shared.result(controller, scenario)
    }

    static let slowRowIcon = AppCatalog.bundled().entries[8].icon

    @Test func aSlowIconScrolledOutAndBackIsDownloadedOnce() async throws {
        let step4 = try await reportOfRacyStep(4, scenario: .scrollBackWhileLoading)
        let step5 = await Self.run(Lesson05OperationPool.AppsViewController.self, .scrollBackWhileLoading).report
        // Step 4 starts a second and a third download of row 8 while the first is in flight.
        #expect(step4.duplicateRequests == 2)
        #expect(step5.duplicateRequests == 0)
        #expect(step5.requests == 9 && step5.uniqueURLs == 9)
        #expect(step5.ownIconsAtEnd == step5.visibleRowsAtEnd)
    }

    @Test func theSlowIconIsAskedForOnceInStep5() async {
        let result = await Self.run(Lesson05OperationPool.AppsViewController.self, .scrollBackWhileLoading)
        #expect(result.timeline.requests.filter { $0.url == Self.slowRowIcon }.count == 1)
    }

    /// Requests that started long after the user stopped scrolling. In the
    /// offline scenario the drag starts at 1 s and ends at 2 s; from 3 s on,
    /// nothing new has been shown for a whole second, so no request is needed
    /// until the end at 5 s.
    static func requestsLongAfterScrolling(_ result: ScenarioResult) throws -> Int {
        let drag = try #require(result.timeline.events.first { $0.label.hasPrefix("drag") })
        let quietFrom = drag.ms + 2000
        return result.timeline.requests.filter { $0.startMs > quietFrom }.count
    }

    // Step 4 offline writes only nil into its dictionary, which never grows, so
    // it cannot crash in-process; but it is still a racy write for TSan.
    @Test(.racyStepInProcess) func step4OfflineKeepsRequestingForAsLongAsItRuns() async throws {
        let result = await Self.run(Lesson04CacheDictionary.AppsViewController.self, .offlineBrowse)
        let report = result.report
        // Step 4 reloads a row whose download failed, which downloads again, forever: 2074 requests for 18 icons.
        #expect(report.requests == 2074 && report.uniqueURLs == 18)
        // Still going when the user has long stopped: the loop is not the scrolling's doing.
        let late = try Self.requestsLongAfterScrolling(result)
        #expect(late == 808, "\(late) requests long after the scrolling")
    }

    @Test func step5OfflineTriesEachShownIconOnce() async throws {
        let result = await Self.run(Lesson05OperationPool.AppsViewController.self, .offlineBrowse)
        // Rows 0…17 were shown, each once: one failed request each, however long we wait.
        #expect(result.report.requests == result.report.uniqueURLs)
        #expect(result.report.uniqueURLs == 18)
        #expect(try Self.requestsLongAfterScrolling(result) == 0)
    }

    /// Row 2's icon fails once, then works. The scenario scrolls away and back.
    @Test func aFailedIconIsTriedAgainWhenItsRowIsShownAgain() async throws {
        let icon = AppCatalog.bundled().entries[2].icon
        let naive = await Self.run(NaivePoolViewController.self, .failOnce)
        let fixed = await Self.run(Lesson05OperationPool.AppsViewController.self, .failOnce)

        // The naive pool keeps the failed operation: row 2 is never asked for again.
        let naiveTries = naive.timeline.requests.filter { $0.url == icon }
        #expect(naiveTries.count == 1)
        #expect(naive.report.ownIconsAtEnd == naive.report.visibleRowsAtEnd - 1)

        let fixedTries = fixed.timeline.requests.filter { $0.url == icon }
        try #require(fixedTries.count == 2)
        #expect(fixedTries[0].outcome == .failed)
        #expect(fixedTries[1].outcome == .ok)
        // Tried again only when the row came back, not in a loop right after failing.
        let scrollBack = try #require(fixed.timeline.events.first { $0.label == "drag to row 0" })
        #expect(fixedTries[1].startMs >= scrollBack.ms)
        #expect(fixed.report.ownIconsAtEnd == fixed.report.visibleRowsAtEnd)
    }

    @Test func theControllerIsFreedWhileDownloadsAreStillRunning() async throws {
        let step4 = try await reportOfRacyStep(4, scenario: .leaveWhileLoading)
        let step5 = await Self.run(Lesson05OperationPool.AppsViewController.self, .leaveWhileLoading).report
        // Step 4's download blocks hold the controller strongly until they end.
        #expect(!step4.controllerFreed)
        #expect(step5.controllerFreed)
    }

    @Test func step5IsFreedWhileItsDownloadsAreStillOut() async {
        let result = await Self.run(Lesson05OperationPool.AppsViewController.self, .leaveWhileLoading)
        #expect(result.report.controllerFreed)
        // Some slow download was still running at the end (the network's shutdown
        // ended it): the controller did not wait for its operations to finish.
        let stillOut = result.timeline.requests.filter {
            $0.outcome == .inFlight || $0.error == NetworkError.shutDown.description
        }
        #expect(!stillOut.isEmpty)
    }

    @Test func threeDownloadsAtOnceAtMost() async {
        let result = await Self.run(Lesson05OperationPool.AppsViewController.self, .fastScrollSlowRows)
        #expect(result.report.maxInFlight == 3)
        #expect(result.report.duplicateRequests == 0)
    }

    // MARK: exercise 5, the same measures as the learner's checker

    @Test func exercise5IsSolvedByStep5AndNotBeforeIt() async {
        // Step 4's runs in a child process: its racy dictionary can crash one.
        let step4 = await ExerciseProof.imageListInChildProcess(5, step: 4)
        let step5 = await ExerciseProof.imageList(5, Lesson05OperationPool.AppsViewController.self)
        ExerciseProof.expectEveryBugPresent(step4)
        ExerciseProof.expectSolved(step5)
    }

    /// The safeguard is a real check: the pool as first written (a failed
    /// download left in it) fails it, and nothing else.
    @Test func exercise5CatchesTheNaivePool() async throws {
        let naive = await ExerciseProof.imageList(5, NaivePoolViewController.self)
        let retried = try #require(naive.first { $0.bug == "a failed icon is never tried again" })
        #expect(!retried.passed)
        #expect(naive.filter { !$0.passed }.map(\.bug) == [retried.bug])
    }
}
