import Foundation
import LessonChecks
import LessonKit
import SlowNetwork
import TableKit
import Testing

@testable import Lesson01SyncLoad
@testable import Lesson02AsyncPlaceholder

/// Step 2 moves the download to a background `OperationQueue`, sets a placeholder first and comes back to
/// `OperationQueue.main` for the UI. Fixes: the frozen main queue, and cells drawn blank while they load.
/// Both bugs are shown in step 1 and gone in step 2, on the same scenario (the standard scroll).
@Suite struct Lesson02Tests {
    static func standardRuns() async -> (step1: ScenarioResult, step2: ScenarioResult) {
        let step1 = await SharedRuns.shared.result(Lesson01SyncLoad.AppsViewController.self, .standard)
        let step2 = await SharedRuns.shared.result(Lesson02AsyncPlaceholder.AppsViewController.self, .standard)
        return (step1, step2)
    }

    @Test func mainQueueNoLongerStalls() async {
        let (step1, step2) = await Self.standardRuns()
        // Step 1: the main queue is blocked for eight whole downloads at once (the first screen, or a scroll back).
        #expect(step1.report.maxMainStallMs == 4000)
        // Step 2: no download runs there, and the main queue never waits.
        #expect(step2.report.requestsOnMainQueue == 0 && step2.report.requests == 48)
        #expect(step2.report.maxMainStallMs == 0)
        // The screen keeps moving: step 1 drops 1200 of its 1244 frames, step 2 none.
        #expect(step1.report.droppedFrames == 1200)
        #expect(step2.report.droppedFrames == 0)
    }

    @Test func cellsShowAPlaceholderInsteadOfNothing() async {
        let (step1, step2) = await Self.standardRuns()
        // Step 1: the first screen stays blank until its last icon has arrived: 8 × 500 ms, 240 frames.
        #expect(step1.report.blankFrames == 240)
        #expect(step1.report.placeholderFrames == 0)
        // Step 2: every row shows the placeholder or its icon from the first frame.
        #expect(step2.report.blankFrames == 0)
        #expect(step2.report.placeholderFrames == 260)
    }

    @Test func theUIIsTouchedOnlyOnTheMainQueue() async {
        let (_, step2) = await Self.standardRuns()
        // The download runs on a worker thread; the image is set in `OperationQueue.main.addOperation`.
        #expect(step2.timeline.requests.allSatisfy { $0.thread != Request.mainQueue })
        #expect(step2.report.mainThreadViolations == 0)
    }

    // MARK: exercise 2, the same measures as the learner's checker

    @Test func exercise2IsSolvedByStep2AndNotBeforeIt() async {
        let step1 = await ExerciseProof.imageList(2, Lesson01SyncLoad.AppsViewController.self)
        let step2 = await ExerciseProof.imageList(2, Lesson02AsyncPlaceholder.AppsViewController.self)
        ExerciseProof.expectEveryBugPresent(step1)
        ExerciseProof.expectSolved(step2)
    }
}
