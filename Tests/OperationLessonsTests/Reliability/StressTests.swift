import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import Testing

@testable import Lesson03ModelCache
@testable import Lesson05OperationPool
@testable import Lesson06SandboxCache
@testable import Lesson07CustomOperation

/// A seeded random run over a 300-row catalog: drags, flings, memory warnings
/// and offline spells on a network that fails 20 % of requests, ending online
/// with the last screen shown again until it loads. CI plays a small one; a
/// bigger one is a matter of environment variables (docs/reliability.md):
///
///     OPERATION_LESSONS_STRESS_EVENTS=200 OPERATION_LESSONS_STRESS_SEEDS=1,2,3 \
///     OPERATION_LESSONS_STRESS_STEPS=3,5,6,7 swift test --filter StressTests
@Suite struct StressTests {
    static let environment = ProcessInfo.processInfo.environment
    static let rows = environment["OPERATION_LESSONS_STRESS_ROWS"].flatMap { Int($0) } ?? 300
    static let events = environment["OPERATION_LESSONS_STRESS_EVENTS"].flatMap { Int($0) } ?? 12
    static let seeds = (environment["OPERATION_LESSONS_STRESS_SEEDS"] ?? "42").split(separator: ",").compactMap {
        UInt64($0.trimmingCharacters(in: .whitespaces))
    }
    /// Every step of `steps` by default; a step left out of
    /// OPERATION_LESSONS_STRESS_STEPS is reported as skipped, not as passed.
    static let chosenSteps = Set(
        (environment["OPERATION_LESSONS_STRESS_STEPS"] ?? "3,5,6,7").split(separator: ",").compactMap { Int($0) })

    static func chosen(_ step: Int) -> ConditionTrait {
        .enabled(if: chosenSteps.contains(step), "not in OPERATION_LESSONS_STRESS_STEPS")
    }

    /// The stress script, ending on the last row it scrolled to, shown again
    /// (a screen away and back) up to five times: with 20 % of requests
    /// failing and no automatic retry in the tutorials' code, the user's way
    /// to get a failed icon is to show its row again.
    static func scenario(seed: UInt64, showingAgain times: Int) -> Scenario {
        var scenario = Scenario.stress(seed: seed, rows: rows, events: events)
        let lastRow =
            scenario.steps.reversed().lazy.compactMap { step -> Double? in
                switch step {
                case .drag(let row, _), .fling(let row, _), .peek(let row, _): row
                default: nil
                }
            }.first ?? 0
        scenario.steps += Reliability.showAgain(min(lastRow, Double(rows - 8)), times: times)
        return scenario
    }

    static let steps: [(step: Int, controller: any LessonController.Type)] = [
        (3, Lesson03ModelCache.AppsViewController.self),
        (5, Lesson05OperationPool.AppsViewController.self),
        (6, Lesson06SandboxCache.AppsViewController.self),
        (7, Lesson07CustomOperation.AppsViewController.self),
    ]

    /// Step 4 is left out: its cache dictionary, written from two download
    /// threads at once, crashes the process now and then (LessonProcess.swift),
    /// and a stress run is where it would. Its race is shown by
    /// ThreadSanitizerTests in a child process. Step 3 writes its model from
    /// download threads too (a race, but no crash seen) and is skipped under TSan.
    @Test(.racyStepInProcess, StressTests.chosen(3)) func step3() async throws { try await stress(step: 3) }
    @Test(StressTests.chosen(5)) func step5() async throws { try await stress(step: 5) }
    @Test(StressTests.chosen(6)) func step6() async throws { try await stress(step: 6) }
    @Test(StressTests.chosen(7)) func step7() async throws { try await stress(step: 7) }

    func stress(step: Int) async throws {
        let controller = try #require(Self.steps.first { $0.step == step }?.controller)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let catalog = try AppCatalog.generated(rows: Self.rows, file: folder.appendingPathComponent("catalog.plist"))

        for seed in Self.seeds {
            let sandbox = try Lesson06Tests.Sandbox()
            // Step 3 is not expected to catch up (below): one look at the last screen is enough.
            let scenario = Self.scenario(seed: seed, showingAgain: step >= 5 ? 5 : 1)
            let result = await ScenarioRunner.run(
                NewProcessRuns.routed(
                    ScenarioSetup(
                        lesson: "0\(step)", title: "stress", controller: controller, scenario: scenario,
                        options: Reliability.options(failRate: 0.2, seed: seed), catalog: catalog,
                        cachesDirectory: sandbox.caches)))
            let report = result.report
            // The script was played to its end (no crash: we are still here).
            let offlineSpells = scenario.steps.filter { $0 == .goOffline }.count
            #expect(report.frames > 0)
            #expect(report.failedRequests > 0)
            Reliability.checkInvariants(report, step: step)
            // Steps 5–7 end with every visible row's icon; step 3, whose queue has no limit and two worker
            // threads, is still working through the downloads of every row the script flew past.
            if step >= 5 {
                #expect(
                    report.ownIconsAtEnd == report.visibleRowsAtEnd && report.visibleRowsAtEnd > 0,
                    "seed \(seed): \(report.summary)")
            }
            let files = Reliability.checkDisk(sandbox, catalog: catalog)
            if step >= 6 { #expect(files > 0) } else { #expect(files == 0) }
            print(
                "stress step \(step) seed \(seed): \(Self.rows) rows, \(scenario.steps.count) script steps, "
                    + "\(report.frames) frames checked, \(report.requests) requests (\(report.failedRequests) failed), "
                    + "\(report.memoryWarnings) memory warnings, \(offlineSpells) offline spells, \(files) cache files, \(Int(report.durationMs)) ms"
            )
        }
    }
}
