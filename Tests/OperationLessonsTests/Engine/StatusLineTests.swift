import Foundation
import LessonKit
import Synchronization
import Testing

@testable import Lesson02AsyncPlaceholder

/// The screen's status line and the summary under it count the same frames:
/// the last screen a run shows, the one plain output prints after the script's
/// last step, is drawn once that screen has been counted.
@Suite struct StatusLineTests {
    @Test func theLastScreenShownCountsWhatTheReportCounts() async throws {
        let shown = Mutex<[ScreenFrame]>([])
        let result = await ScenarioRunner.run(
            ScenarioSetup(
                lesson: "02", title: "async with a placeholder", controller: AppsViewController.self,
                scenario: .fastScrollSlowRows,
                display: { frame in shown.withLock { $0.append(frame) } }))
        let report = result.report
        let stepScreens = shown.withLock { $0 }.filter { $0.finishedStep != nil }
        let last = try #require(stepScreens.last, "plain output prints the screens that end a step")
        #expect(report.wrongImageFrames > 0, "step 2 shows late icons in reused cells on this scenario")
        #expect(last.status.hasSuffix("wrong-icon frames \(report.wrongImageFrames)"), "\(last.status)")
        // Every frame the report counts was counted before its screen was shown: the last screen shown is the end.
        let final = try #require(shown.withLock { $0 }.last)
        #expect(final.status == last.status)
        // Row by row: each refresh with another row's icon has a row that showed it, and whose.
        let rows = report.othersIcons
        #expect(!rows.isEmpty && rows.allSatisfy { $0.frames > 0 && $0.showed != $0.row })
        #expect(rows.map(\.frames).reduce(0, +) >= report.wrongImageFrames)
        #expect(rows.map(\.frames).max() ?? 0 <= report.wrongImageFrames)
        #expect(rows.contains { $0.showed != nil }, "step 2's late icons are other rows' icons")
    }
}
