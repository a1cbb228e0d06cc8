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

/// The report of a step whose code can crash the process, run as its own executable in a child process: steps 3
/// and 4 write their cache from download threads (the data race step 5 fixes), and step 4's dictionary, written by
/// two threads at once, can be corrupted and crash. In process, a crash would take the whole test run down with it;
/// in a child process it is one run that measured nothing, played again, and shared: it is the scoreboard's and
/// the bug matrix's run of the same step and scenario (`ScoreboardRuns`).
func reportOfRacyStep(_ step: Int, scenario: Scenario) async throws -> Report {
    try #require(ScoreboardRuns.inChildProcess.contains(step), "step \(step) is played in this process")
    return try #require(await ScoreboardRuns.report(step: step, scenario: scenario.name))
}
