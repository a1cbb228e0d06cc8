import Foundation
import LessonChecks
import LessonKit
import Testing

@testable import Lesson03ModelCache
@testable import Lesson04CacheDictionary

/// Step 4 moves the icons from the model objects into one `[url: Image]` dictionary owned by the controller, which
/// `didReceiveMemoryWarning` empties. Fixes: a memory warning that frees nothing. Shown in step 3, gone in step 4.
///
/// Step 4's own bugs, for step 5 to fix, are asserted present below, with their measured size.
///
/// Step 4 writes its dictionary from download threads (step 5's data race). Two downloads that finish together can
/// corrupt it and crash the process, so every step 4 run in which downloads succeed is played in a child process
/// (`reportOfRacyStep`): a crash there is recorded as a known issue and the run played again. Offline, every
/// download fails, nothing is ever inserted, and the run is safe in process.
@Suite struct Lesson04Tests {
    static func step3(_ scenario: Scenario) async -> ScenarioResult {
        await SharedRuns.shared.result(Lesson03ModelCache.AppsViewController.self, scenario)
    }

    @Test func aMemoryWarningFreesTheIconsAndTheyComeBackOnDemand() async throws {
        let step3 = await Self.step3(.memoryWarningThenScroll).report
        let step4 = try await reportOfRacyStep(4, scenario: .memoryWarningThenScroll)
        // Step 3: after the warning the app still holds every icon it ever downloaded (on the model objects).
        #expect(step3.liveImageBytes == 14592)
        // Step 4: it holds none (the cells on screen keep theirs, and are not counted).
        #expect(step4.liveImageBytes == 0)

        // The scenario then scrolls down again. Step 3 never downloads an icon twice; step 4 downloads the icons
        // it freed again, on demand (nothing else in this fault-free run can make it repeat a request)…
        #expect(step3.failedRequests == 0 && step4.failedRequests == 0)
        #expect(step3.requests == 28 && step3.uniqueURLs == 28)
        #expect(step4.requests == 48 && step4.uniqueURLs == 28)
        // …and both end with every row showing its own icon, the UI touched only on the main queue.
        for report in [step3, step4] {
            #expect(report.ownIconsAtEnd == report.visibleRowsAtEnd)
            #expect(report.mainThreadViolations == 0)
        }
    }

    @Test func stillBrokenASlowRowScrolledAwayAndBackIsDownloadedTwiceAtOnce() async throws {
        let step4 = try await reportOfRacyStep(4, scenario: .scrollBackOverSlowRow)
        // Row 10 leaves the screen and comes back while its icon is loading: nothing remembers the download in
        // flight, so `cellForRowAt` starts a second one for the same URL. Step 5's operation pool prevents it.
        #expect(step4.duplicateRequests == 1)
        #expect(step4.mainThreadViolations == 0)
    }

    @Test func stillBrokenOfflineTheReloadAsksForTheIconAgainForever() async throws {
        let run = await SharedRuns.shared.result(Lesson04CacheDictionary.AppsViewController.self, .offlineBrowse)
        let report = run.report
        // Every download fails at once; the completion reloads the row anyway; `cellForRowAt` finds no icon and
        // starts another download: a loop that only ends with the scenario.
        // The scenario ends with 3 s of nothing happening: count the requests of its last 1.5 s.
        let end = try #require(run.eventMs("end"))
        let requestsWhileNothingMoves = run.requests(startedAfter: end - 1500).count
        // A fixed step makes at most one request per row shown, none while the user does nothing.
        #expect(report.requests == 2074 && report.uniqueURLs == 18)
        #expect(requestsWhileNothingMoves == 608)
        #expect(run.timeline.requests.allSatisfy { $0.outcome != .ok })
        #expect(report.mainThreadViolations == 0)
    }

    // MARK: exercise 4, the same measures as the learner's checker

    @Test func exercise4IsSolvedByStep4AndNotBeforeIt() async {
        let step3 = await ExerciseProof.imageList(4, Lesson03ModelCache.AppsViewController.self)
        // Step 4's runs in a child process: its racy dictionary can crash one.
        let step4 = await ExerciseProof.imageListInChildProcess(4, step: 4)
        ExerciseProof.expectEveryBugPresent(step3)
        ExerciseProof.expectSolved(step4)
    }
}
