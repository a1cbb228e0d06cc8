import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import Testing

@testable import Lesson02AsyncPlaceholder
@testable import Lesson03ModelCache

/// Step 3 keeps each downloaded icon on its model object and, when a download ends, reloads the row instead of
/// setting the image of the cell it captured. Fixes: every scroll back downloads the same icons again; a late
/// icon lands in a reused cell that now shows another row. Both shown in step 2 and gone in step 3.
@Suite struct Lesson03Tests {
    static func run(step: Int, _ scenario: Scenario) async -> ScenarioResult {
        let controller: any LessonController.Type =
            step == 2 ? Lesson02AsyncPlaceholder.AppsViewController.self : Lesson03ModelCache.AppsViewController.self
        return await SharedRuns.shared.result(controller, scenario)
    }

    @Test func scrollingBackOverLoadedRowsDownloadsNothingAgain() async {
        let step2 = await Self.run(step: 2, .standard)
        let step3 = await Self.run(step: 3, .standard)
        // A fault-free run: every request succeeds, so a repeat is a re-download, not a retry.
        #expect(step2.report.failedRequests == 0)
        #expect(step3.report.failedRequests == 0)
        // Step 2 keeps nothing: scrolling back over rows it already showed downloads their icons again.
        #expect(step2.report.requests == 48 && step2.report.uniqueURLs == 28)
        // Step 3 downloads each icon once.
        #expect(step3.report.requests == 28 && step3.report.uniqueURLs == 28)
    }

    @Test func aLateIconNeverLandsInAnotherRow() async {
        let step2 = await Self.run(step: 2, .fastScrollSlowRows)
        let step3 = await Self.run(step: 3, .fastScrollSlowRows)
        // Step 2: slow icons arrive after their cell was reused for another row, and are drawn there.
        #expect(step2.report.wrongImageFrames == 469)
        // Step 3: the same slow icons arrive (so the zero below is not for lack of trying)…
        let slowIcons = iconURLs(ofRowsFrom: 10)
        let slowDelivered = step3.timeline.requests.filter { $0.outcome == .ok && slowIcons.contains($0.url) }
        #expect(slowDelivered.count == 28)
        // …and no frame ever shows a row with another row's icon.
        #expect(step3.report.wrongImageFrames == 0)
    }

    /// Step 3's own story goes on until its slow icons have come: it ends on
    /// every visible row showing its own icon, not on placeholders.
    @Test func stepThreesOwnStoryEndsWithEveryRowOnItsOwnIcon() async throws {
        let own = try #require(LessonCatalog.entry(3).flatMap { Scenario.named($0.defaultScenario) })
        let report = await Self.run(step: 3, own).report
        #expect(report.visibleRowsAtEnd == 8 && report.ownIconsAtEnd == 8)
        #expect(report.durationMs == 9366.666666)
    }

    /// Paced for a person (`--pace`, as on a terminal), the story is the one
    /// played unpaced. Between paced turns the worker thread that ran the main
    /// queue goes back to the pool; step 3's next download ran on it and was
    /// taken for the main queue waiting, and the run stopped, stuck, at 2.2 s.
    @Test(.racyStepAsChild) func aPacedRunIsTheUnpacedStory() async throws {
        let run = try await Rig.runProduct("Lesson03ModelCache", ["--pace", "--speed", "50", "--json"])
        #expect(run.status == 0, "\(run.standardError)")
        let report = try JSONDecoder().decode(Report.self, from: Data(run.standardOutput.utf8))
        #expect(report.stuck == nil)
        #expect(report.requestsOnMainQueue == 0)
        #expect(report.requests == 66 && report.ownIconsAtEnd == 8 && report.durationMs == 9366.666666)
    }

    /// The timeline is the story's end: the downloads still in flight
    /// there are drawn in flight, never as failed by the network's shutdown
    /// after it (which, on threads of their own, beat the picture in some runs).
    @Test func requestsInFlightAtTheEndAreDrawnInFlight() async {
        for _ in 1...5 {
            let result = await ScenarioRunner.run(
                ScenarioSetup(
                    lesson: "03", title: "model-held cache", controller: Lesson03ModelCache.AppsViewController.self,
                    scenario: .fastScrollSlowRows))
            let unfinished = result.timeline.requests.filter { $0.outcome == .inFlight || $0.outcome == .failed }
            #expect(unfinished.count == 28 && unfinished.allSatisfy { $0.outcome == .inFlight && $0.endMs == nil })
        }
    }

    @Test func theUIIsTouchedOnlyOnTheMainQueue() async {
        for scenario in [Scenario.standard, .fastScrollSlowRows] {
            let step3 = await Self.run(step: 3, scenario)
            // `app.image` is written on the download thread (step 5 fixes that race), but the table is
            // touched only from `OperationQueue.main`.
            #expect(step3.report.mainThreadViolations == 0, "\(scenario.name)")
        }
    }

    // MARK: exercise 3, the same measures as the learner's checker

    @Test func exercise3IsSolvedByStep3AndNotBeforeIt() async {
        let step2 = await ExerciseProof.imageList(3, Lesson02AsyncPlaceholder.AppsViewController.self)
        let step3 = await ExerciseProof.imageList(3, Lesson03ModelCache.AppsViewController.self)
        ExerciseProof.expectEveryBugPresent(step2)
        ExerciseProof.expectSolved(step3)
    }
}
