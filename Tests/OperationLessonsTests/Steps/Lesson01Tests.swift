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

    @Test func syncLoadBlocksTheMainQueueForWholeDownloads() async {
        let report = await Self.standardRun().report
        // Every request is made on the main queue, and the longest stall is eight downloads of 500 ms.
        #expect(report.requestsOnMainQueue == 40 && report.requests == 40)
        #expect(report.maxMainStallMs == 4000)
    }

    @Test func firstScreenWaitsForEveryVisibleIconInTurn() async throws {
        let report = await Self.standardRun().report
        // One download after another on the main queue: nothing is drawn until the last visible row has its
        // icon, 8 × 500 ms after the launch. Every refresh before that first commit was blank: 240 of them.
        #expect(report.visibleRowsAtEnd == 8)
        #expect(report.timeToAllVisibleMs == 4000)
        #expect(report.blankFrames == 240)
    }

    @Test func scrollingFreezesAtEveryNewRow() async throws {
        let run = await Self.standardRun()
        let report = run.report
        let scrollStart = try #require(run.eventMs("drag to row 20"))
        // Each row scrolling into view blocks the main queue for a whole download: a frozen screen mid-gesture.
        let stallsWhileScrolling = run.timeline.stalls.filter { $0.startMs >= scrollStart }
        #expect(stallsWhileScrolling.count == 6)
        // Of 1244 refreshes, 1200 showed nothing new.
        #expect(report.frames == 1244 && report.droppedFrames == 1200)
        // Scrolling back downloads the same icons again: nothing is kept.
        #expect(report.requests == 40 && report.uniqueURLs == 28)
    }
}
