@testable import Lesson05OperationPool
@testable import Lesson06SandboxCache
import LessonKit
import Testing

/// The report's per-launch figures: each launch's requests, and the files its
/// caches folder held as it launched. What a relaunch's verdicts read.
@Suite struct LaunchFiguresTests {
    @Test func aRelaunchIsTwoLaunchesEachWithItsRequestsAndTheFilesItFound() async throws {
        let step5 = await SharedRuns.shared.result(Lesson05OperationPool.AppsViewController.self, .relaunch).report
        let step6 = await SharedRuns.shared.result(Lesson06SandboxCache.AppsViewController.self, .relaunch).report
        // Step 5 keeps icons in memory only: its second launch finds nothing and downloads all 8 again.
        #expect(step5.run.launches.map { $0.requests } == [8, 8])
        #expect(step5.run.launches.map { $0.diskCacheFiles } == [0, 0])
        // Step 6 finds the 8 files its first launch wrote, and downloads nothing.
        #expect(step6.run.launches.map { $0.requests } == [8, 0])
        #expect(step6.run.launches.map { $0.diskCacheFiles } == [0, 8])
        for report in [step5, step6] {
            #expect(report.run.launches.first?.atMs == 0)
            let relaunchedAt = try #require(report.run.launches.last?.atMs)
            #expect(relaunchedAt > 0 && relaunchedAt < report.durationMs)
            #expect(report.run.launches.last?.requests == report.requestsAfterRelaunch)
        }
    }

    @Test func aStoryWithNoRelaunchIsOneLaunchWithEveryRequest() async throws {
        let report = await SharedRuns.shared.result(Lesson05OperationPool.AppsViewController.self, .standard).report
        #expect(report.run.launches.count == 1)
        #expect(report.run.launches.first?.requests == report.requests)
        #expect(report.run.launches.first?.diskCacheFiles == 0)
    }
}
