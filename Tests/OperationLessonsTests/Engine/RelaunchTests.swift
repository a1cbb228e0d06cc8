import Foundation
import LessonChecks
import Testing

@testable import Lesson06SandboxCache
@testable import LessonKit
@testable import SlowNetwork

/// A relaunch is a new process, as on a phone (`CarriedLaunch`): what a
/// process keeps, its hash seed and its statics, does not survive it. The
/// programs are step 6 with its files named by `url.hashValue`, and with a
/// static memory cache and no disk (Tests/Fixtures/PerProcessCache), judged as
/// `lessons check 6` judges a workbench; and step 6's own executable, whose
/// figures are those the in-process runs of the other tests read.
@Suite struct RelaunchTests {
    static let program = Rig.productsDirectory.appendingPathComponent("PerProcessCacheFixture")
    static let relaunchBug = "a relaunch downloads every icon again"
    static let filesNotFound = "the relaunched app does not find the files it wrote"

    @Test func filesNamedByHashValueAreLostAtARelaunch() async throws {
        let results = await ImageListChecks.check(
            exercise: 6, run: ImageListChecks.inChildProcesses(Self.program, root: Rig.packageRoot))
        let relaunch = try #require(results.first { $0.bug == Self.relaunchBug })
        #expect(!relaunch.passed, "\(relaunch.measured)")
        #expect(relaunch.measured.contains("8 requests after the relaunch"), "\(relaunch.measured)")
        // Its files are on disk: the verdict says they are not found, not that memory was lost.
        #expect(relaunch.shape == Self.filesNotFound)
        #expect(relaunch.hint.contains("`hashValue`"), "\(relaunch.hint)")
        #expect(
            relaunch.diagnosis
                == "on relaunch, the launch at 1517 ms found 8 files in the Caches folder, yet asked again for 8 "
                + "icons an earlier launch had downloaded; 16 files on disk at the end for 8 icons")
        let offline = try #require(results.first { $0.bug == "an offline relaunch shows only placeholders" })
        #expect(!offline.passed, "\(offline.measured)")
        // The second launch finds the first one's 8 files under other names, downloads all 8 again and writes 8 more.
        let report = try await LessonProcess.report("PerProcessCacheFixture", ["--scenario", "relaunch"]).report
        #expect(report.run.launches.map(\.requests) == [8, 8])
        #expect(report.run.launches.map(\.diskCacheFiles) == [0, 8])
        #expect(report.diskCacheFiles == 16)
    }

    @Test func aStaticMemoryCacheIsEmptyAtARelaunch() async throws {
        let results = await ImageListChecks.check(
            exercise: 6,
            run: ImageListChecks.inChildProcesses(
                Self.program, arguments: ["--static-memory-cache"], root: Rig.packageRoot))
        let relaunch = try #require(results.first { $0.bug == Self.relaunchBug })
        #expect(!relaunch.passed, "\(relaunch.measured)")
        // Nothing on disk: memory is what was lost, and the bug's own hint says where else to keep the icons.
        #expect(relaunch.shape == nil)
        #expect(relaunch.hint.contains("Where could they be kept that memory is not?"), "\(relaunch.hint)")
        let report = try await LessonProcess.report(
            "PerProcessCacheFixture", ["--static-memory-cache", "--scenario", "relaunch"]
        ).report
        #expect(report.run.launches.map(\.requests) == [8, 8])
        #expect(report.run.launches.map(\.diskCacheFiles) == [0, 0])
    }

    /// The second launch's hash seed is its own, and the same in every run of the same flags: the checker's
    /// children hash deterministically (`ChildProcess.sameFiguresEnvironment`), and so does each launch.
    @Test func theRelaunchsHashSeedIsTheSameInEveryRun() async throws {
        var reports: [Report] = []
        for _ in 0..<2 {
            let run = try await LessonProcess.run(
                "PerProcessCacheFixture", ["--scenario", "relaunch", "--json"],
                environment: ChildProcess.sameFiguresEnvironment)
            #expect(run.finished, "\(run.errors)")
            reports.append(try run.report())
        }
        #expect(reports[0].run.launches.map(\.requests) == [8, 8])
        #expect(reports[0].withoutWallTime == reports[1].withoutWallTime)
    }

    /// A request still in flight when the app's process ends never answers: it is logged as failed at that instant.
    @Test func aRequestInFlightEndsWithItsProcess() {
        let log = RequestLog(requests: [
            Request(
                id: 0, url: "https://example.com/a.png", startMs: 100, endMs: nil, thread: Request.worker,
                outcome: .inFlight, error: nil, bytes: 0, isDuplicate: false),
            Request(
                id: 1, url: "https://example.com/b.png", startMs: 100, endMs: 600, thread: Request.worker,
                outcome: .ok, error: nil, bytes: 781, isDuplicate: false),
        ])
        let ended = log.requests.map { $0.endingWithItsProcess(atMs: 300) }
        #expect(ended[0].endMs == 300 && ended[0].outcome == .failed)
        #expect(ended[0].error == Request.endedWithItsProcess)
        #expect(ended[1] == log.requests[1])
        #expect(RequestLog(requests: ended).inFlight == 0)
    }

    /// A run inside the tests plays a relaunch as a new process too (`NewProcessRuns`): step 6 with its files named
    /// by `url.hashValue`, a controller of this test target, downloads all 8 icons again at the second launch.
    @Test func aRunInTheTestsRelaunchesAsANewProcess() async {
        let setup = ScenarioSetup(
            lesson: "06", title: "files named by hashValue", controller: HashNamedStepSix.self, scenario: .relaunch)
        let report = await ScenarioRunner.run(NewProcessRuns.routed(setup)).report
        #expect(report.stuck == nil, "\(report.stuck ?? "")")
        #expect(report.run.launches.map(\.requests) == [8, 8])
        #expect(report.run.launches.map(\.diskCacheFiles) == [0, 8])
    }

    /// Given no way to start a new process, a run inside the tests stops at the relaunch and says why: it never
    /// relaunches the app in the test process.
    @Test func aRunWithNoNewProcessStopsAtTheRelaunch() async {
        let report = await ScenarioRunner.run(
            ScenarioSetup(
                lesson: "06", title: "sandbox cache", controller: Lesson06SandboxCache.AppsViewController.self,
                scenario: .relaunch)
        ).report
        #expect(report.stuck == ScenarioRunner.relaunchRefused)
        #expect(report.run.launches.map(\.requests) == [8])
    }

    /// Step 6 keeps nothing in its process that a relaunch needs: played as two processes, its figures are those
    /// of the same story played in this process, every one of them.
    @Test(arguments: [Scenario.relaunch, .offlineRelaunch])
    func stepSixPlaysTheSameAsANewProcess(scenario: Scenario) async throws {
        let executable = try await LessonProcess.report("Lesson06SandboxCache", ["--scenario", scenario.name]).report
        let inProcess = await SharedRuns.shared.result(Lesson06SandboxCache.AppsViewController.self, scenario).report
        #expect(executable.run.launches.count == 2)
        #expect(executable.withoutWallTime == inProcess.withoutWallTime)
    }
}

/// Step 6 with its files named as `PerProcessCacheFixture`'s are, by the URL's `hashValue`, here in the test target.
final class HashNamedStepSix: Lesson06SandboxCache.AppsViewController {
    override func cacheFileName(for icon: String) -> String { "icon-\(icon.hashValue).png" }
}
