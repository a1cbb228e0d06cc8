import Foundation
import LessonKit
import Testing

/// The disk cache outlives a run, as a real app's Caches folder does: a run
/// that starts with icons an earlier run left says so, and the steps whose
/// point is their downloads (7 and 10) empty it before their own scenario.
@Suite struct WarmStartTests {
    /// Runs `target` twice on one Caches folder and returns both reports.
    static func twice(_ target: String, _ flags: [String]) async throws -> (first: Report, second: Report, text: String)
    {
        let caches = try ScratchFolder.make("warm-start")
        defer { ScratchFolder.remove(caches) }
        let environment = ["XDG_CACHE_HOME": caches.path]
        let first = try await Rig.runProduct(target, flags + ["--json"], environment: environment)
        let second = try await Rig.runProduct(target, flags + ["--json"], environment: environment)
        let third = try await Rig.runProduct(target, flags + ["--plain"], environment: environment)
        let decode = { (run: Rig.ProcessResult) in
            try JSONDecoder().decode(Report.self, from: Data(run.standardOutput.utf8))
        }
        return (try decode(first), try decode(second), third.standardOutput)
    }

    @Test func aWarmStartIsSaidWithTheWayToStartCold() async throws {
        let runs = try await Self.twice("Lesson06SandboxCache", ["--scenario", "relaunch"])
        #expect(runs.first.diskCacheFilesAtStart == 0)
        #expect(runs.first.requests == 8)
        #expect(runs.second.diskCacheFilesAtStart == 8)
        #expect(runs.second.requests == 0)
        #expect(runs.text.contains("  Disk cache: 8 icons from an earlier run — `--clear-cache` to start cold."))
    }

    /// The default demos of steps 7 and 10 show the same thing the second time.
    @Test(arguments: [("Lesson07CustomOperation", 25), ("Lesson10WebImage", 9)])
    func aDownloadStepsOwnScenarioStartsColdEveryTime(target: String, requests: Int) async throws {
        let runs = try await Self.twice(target, [])
        #expect(runs.first.requests == requests)
        #expect(runs.second.requests == requests)
        #expect(runs.second.diskCacheFilesAtStart == 0)
        #expect(runs.second.withoutWallTime == runs.first.withoutWallTime)
        #expect(runs.text.contains("  Disk cache: emptied first, as for every run of step "))
    }

    /// Another scenario of step 7 keeps what is on disk, and says so.
    @Test func anotherScenarioOfStepSevenStartsWarm() async throws {
        let runs = try await Self.twice("Lesson07CustomOperation", ["--scenario", "standard"])
        #expect(runs.first.requests == 28)
        #expect(runs.second.diskCacheFilesAtStart == 28)
        #expect(runs.second.requests == 0)
        #expect(runs.text.contains("Disk cache: 28 icons from an earlier run"))
    }
}
