import Foundation
import LessonKit
import TableKit
import Testing

@testable import Lesson01SyncLoad

/// Step 1 fixes nothing: it shows the problem every later step starts from. Icons fetched inside `cellForRowAt`
/// on the main queue freeze the app: the first screen waits rows × latency, and scrolling stalls at every new row.
@Suite struct Lesson01Tests {
    static func standardRun() async -> ScenarioResult {
        await SharedRuns.shared.result(AppsViewController.self, .standard)
    }

    @Test func syncLoadBlocksTheMainQueueForAtLeastOneLatency() async {
        let run = await Self.standardRun()
        let report = run.report
        // 500 ms of story latency at 10× is 50 ms of wall time per icon.
        #expect(report.maxMainStallMs >= run.latencyWallMs)
        #expect(report.blankFrames > 0)
        #expect(report.requestsOnMainQueue == report.requests)
        print(report.summary)
    }

    @Test func firstScreenWaitsForEveryVisibleIconInTurn() async throws {
        let run = await Self.standardRun()
        let report = run.report
        // One download after another on the main queue: nothing is drawn until the last visible row has its icon.
        let rows = Double(report.visibleRowsAtEnd)
        #expect(rows >= 8)
        let firstScreen = try #require(report.timeToAllVisibleMs)
        #expect(firstScreen >= rows * run.latencyWallMs)
        // The screen stayed blank all that time: every refresh before the first commit was a blank frame.
        let refreshes = rows * run.latencyWallMs / FrameClock.frameMs
        #expect(Double(report.blankFrames) >= refreshes.rounded(.down) - 1)
    }

    @Test func scrollingFreezesAtEveryNewRow() async throws {
        let run = await Self.standardRun()
        let report = run.report
        let scrollStart = try #require(run.eventMs("drag to row 20"))
        // Each row scrolling into view blocks the main queue for a whole download: a frozen screen mid-gesture.
        let stallsWhileScrolling = run.timeline.stalls.filter { $0.startMs >= scrollStart }
        let longest = stallsWhileScrolling.map { $0.endMs - $0.startMs }.max() ?? 0
        #expect(longest >= run.latencyWallMs)
        // Frames dropped after the first screen (the blank ones were all before it).
        #expect(report.droppedFrames > report.blankFrames)
        // Scrolling back downloads the same icons again: nothing is kept.
        #expect(report.requests > report.uniqueURLs)
    }
}
