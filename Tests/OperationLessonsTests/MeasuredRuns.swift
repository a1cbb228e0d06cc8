import Foundation
import LessonKit
import SlowNetwork
import Testing

/// Reading a run the way the lesson texts talk about it. The runs themselves are `SharedRuns`': the tests of
/// step N compare it with step N-1 on the same scenario, so step N-1's run is needed by two test files, and each is
/// played once per test process.
extension ScenarioResult {
    /// When the script event with this label (e.g. "memory warning") happened, in ms since launch.
    func eventMs(_ label: String) -> Double? {
        timeline.events.first { $0.label == label }?.ms
    }

    /// Requests that started at or after `ms`.
    func requests(startedAfter ms: Double) -> [Request] {
        timeline.requests.filter { $0.startMs >= ms }
    }
}

/// The icon URLs of the catalog's rows from `first` on (the scenarios' slow rows are "row 10 and after").
func iconURLs(ofRowsFrom first: Int) -> Set<String> {
    Set(AppCatalog.bundled().entries.dropFirst(first).map(\.icon))
}

/// A step's own executable (`--json`) run in a child process, for the steps whose code can crash the process:
/// steps 3 and 4 write their cache from download threads (the data race step 5 fixes), and step 4's dictionary,
/// written by two threads at once, can be corrupted and crash — seen in about half of the `--speed 10` runs of
/// `standard` without latency jitter, and now and then with it. In process, a crash would take the whole test run
/// down with it; in a child process it is one run that measured nothing, which the caller records as the known
/// issue it is, then runs again.
extension LessonProcess {
    enum Outcome: Sendable {
        case finished(Report)
        /// Killed by a signal; `where` is the lesson's source line the crash report names first.
        case crashed(signal: Int32, where: String)
    }

    static func run(step: Int, scenario: Scenario) async throws -> Outcome {
        let entry = try #require(LessonCatalog.entry(step))
        let run = try await run(
            entry.target, ["--json", "--scenario", scenario.name])
        if run.crashed {
            let frame = run.errors.split(separator: "\n").first { $0.contains("Sources/Lesson") }
            let place = frame.flatMap { line in line.range(of: "Sources/").map { String(line[$0.lowerBound...]) } }
            return .crashed(signal: run.status, where: place ?? "a frame outside the lesson's code")
        }
        try #require(run.finished, "\(entry.target) exited with status \(run.status)")
        return .finished(try run.report())
    }
}

/// The report of a step whose cache race can crash its process (see `LessonProcess`), run in a child process. A
/// crash is that race, the step's lesson: the run is played again, up to five times, and only five crashes fail.
func reportOfRacyStep(_ step: Int, scenario: Scenario) async throws -> Report {
    for _ in 1...5 {
        if case .finished(let report) = try await LessonProcess.run(step: step, scenario: scenario) { return report }
    }
    throw CrashedEveryTime(step: step, scenario: scenario.name)
}

struct CrashedEveryTime: Error, CustomStringConvertible {
    let step: Int
    let scenario: String
    var description: String { "step \(step) crashed in all 5 runs of \(scenario)" }
}
