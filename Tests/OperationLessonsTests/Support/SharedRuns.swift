import Foundation
import LessonKit
import LessonSupport
import Testing

/// The tests' one run cache. Several tests assert different numbers of the
/// same run (same controller and named scenario, or the same executable and
/// flags); on the story clock a run gives the same figures every time, so each
/// is played once per test process, by whichever test asks first, and its
/// result is read by the others. Only for runs with a fresh Caches folder and
/// the bundled catalog: anything else gets its own run. Every shared in-process
/// run must end by itself: a run the clock had to stop fails the test that asked for it. A story that relaunches
/// the app is played in new processes (`NewProcessRuns`), as on a device.
actor SharedRuns {
    static let shared = SharedRuns()

    private var runs: [String: Task<any Sendable, Never>] = [:]

    /// A scenario played in this process.
    func result(_ controller: any LessonController.Type, _ scenario: Scenario) async -> ScenarioResult {
        let result = await memo("\(String(reflecting: controller)) · \(scenario.name)") {
            // A step's controller is named after its target ("Lesson04CacheDictionary.AppsViewController").
            let module = String(reflecting: controller).prefix { $0 != "." }
            let entry = LessonCatalog.all.first { $0.target == module }
            let setup = ScenarioSetup(
                lesson: entry?.id ?? "", title: entry?.title ?? "shared run", controller: controller,
                scenario: scenario)
            return await ScenarioRunner.run(NewProcessRuns.routed(setup))
        }
        #expect(result.report.stuck == nil, "\(result.report.lesson) \(result.report.scenario): \(result.report.stuck ?? "")")
        return result
    }

    /// A lesson executable's `--json` report, played in a child process until a run does not crash (`LessonProcess.report`).
    func childReport(_ target: String, _ arguments: [String]) async throws -> Report {
        let outcome = await memo("\(target) \(arguments.joined(separator: " "))") { () -> Result<Report, any Error> in
            do { return .success(try await LessonProcess.report(target, arguments).report) } catch { return .failure(error) }
        }
        return try outcome.get()
    }

    /// A built executable's run (`Rig.runProduct`) whose output depends on its arguments and environment alone
    /// (a usage, a help, a refusal), asked for by several tests: launched once per test process.
    func product(_ name: String, _ arguments: [String], environment: [String: String] = [:]) async throws
        -> Rig.ProcessResult
    {
        let key = "product \(name) \(arguments) \(environment.sorted { $0.key < $1.key })"
        let outcome = await memo(key) { () -> Result<Rig.ProcessResult, any Error> in
            do { return .success(try await Rig.runProduct(name, arguments, environment: environment)) } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// What `make` gives, made once per `key` in this process.
    func memo<Value: Sendable>(_ key: String, _ make: @escaping @Sendable () async -> Value) async -> Value {
        let run = runs[key] ?? Task { await make() }
        runs[key] = run
        guard let value = await run.value as? Value else { preconditionFailure("\(key) was made as another type") }
        return value
    }
}
