import Foundation
import LessonKit
import LessonSupport
import Testing

/// Scenario runs shared between tests. Several tests assert different numbers
/// of the same run (same controller and named scenario); scenarios play one at
/// a time in a process, so each such run is played once, by whichever test asks
/// first, and its result is read by the others. Only for runs with a fresh
/// Caches folder and the bundled catalog: anything else gets its own run.
/// Every shared run must end by itself: a run the clock had to stop fails the
/// test that asked for it.
actor SharedRuns {
    static let shared = SharedRuns()

    private var runs: [String: Task<ScenarioResult, Never>] = [:]

    func result(_ controller: any LessonController.Type, _ scenario: Scenario) async -> ScenarioResult {
        let key = "\(String(reflecting: controller)) · \(scenario.name)"
        if let run = runs[key] { return await checked(run.value) }
        // A step's controller is named after its target ("Lesson04CacheDictionary.AppsViewController").
        let module = String(reflecting: controller).prefix { $0 != "." }
        let entry = LessonCatalog.all.first { $0.target == module }
        let setup = ScenarioSetup(
            lesson: entry?.id ?? "", title: entry?.title ?? "shared run", controller: controller, scenario: scenario)
        let run = Task { await ScenarioRunner.run(setup) }
        runs[key] = run
        return await checked(run.value)
    }

    private func checked(_ result: ScenarioResult) -> ScenarioResult {
        #expect(result.report.stuck == nil, "\(result.report.lesson) \(result.report.scenario): \(result.report.stuck ?? "")")
        return result
    }
}
