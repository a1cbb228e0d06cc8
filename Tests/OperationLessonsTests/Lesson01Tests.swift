import Foundation
import LessonKit
import Testing

@testable import Lesson01SyncLoad

@Suite struct Lesson01Tests {
    @Test func syncLoadBlocksTheMainQueueForAtLeastOneLatency() async {
        var options = LessonOptions()
        options.speed = 10
        let result = await ScenarioRunner.run(
            ScenarioSetup(
                lesson: "01", title: "synchronous load", controller: AppsViewController.self, scenario: .standard,
                options: options))
        let report = result.report
        // 500 ms of story latency at 10× is 50 ms of wall time per icon.
        #expect(report.maxMainStallMs >= 50)
        #expect(report.blankFrames > 0)
        #expect(report.requestsOnMainQueue == report.requests)
        print(report.summary)
    }
}
