import Foundation
import LessonSupport
import SlowNetwork
import Testing
import XCTest

@testable import LessonKit

/// A story that relaunches the app, asked of a run inside the tests, played as
/// a device plays it: each launch a new process (`CarriedLaunch`). The
/// processes are this test binary's, started again for one test,
/// `NewProcessEntry`, which plays the story asked for in its environment as a
/// step's executable plays it: at the relaunch it replaces itself with a new
/// process, which goes on with the story and hands the result over on the
/// report channel. So any controller the tests can name plays its relaunch as
/// a new process, the tests' own ones too, with no table of executables to keep.
enum NewProcessRuns {
    /// The variable holding the story asked of `NewProcessEntry`, as JSON.
    static let variable = "OPERATIONLESSONS_TEST_STORY"

    /// What a child plays: the setup, with the controller by its mangled name.
    struct Story: Codable {
        var controller: String
        var lesson: String
        var title: String
        var scenario: ScenarioText
        var options: LessonOptions
        /// The catalog's file; nil: the bundled one.
        var catalog: String?
        /// The caches folder a test chose; nil: one of the child's own.
        var cachesDirectory: String?
        var hangLimitSeconds: Int64
    }

    /// A scenario as text. A replayed session's keys are carried as their script.
    struct ScenarioText: Codable {
        var name: String
        var summary: String
        var steps: [Scenario.Step]
        var slowRows: Range<Int>?
        var slowSeconds: ClosedRange<Double>
        var rowRules: [RowRule]
        var startsOffline: Bool
        var jitter: Double
        var sharedIcons: [Int: Int]
        var keys: PlayKeys.Carried?

        struct RowRule: Codable {
            var rows: [Int]
            var behavior: URLRule.Behavior
        }

        init(_ scenario: Scenario) {
            name = scenario.name
            summary = scenario.summary
            steps = scenario.steps
            slowRows = scenario.slowRows
            slowSeconds = scenario.slowSeconds
            rowRules = scenario.rowRules.map { RowRule(rows: $0.rows, behavior: $0.behavior) }
            startsOffline = scenario.startsOffline
            jitter = scenario.jitter
            sharedIcons = scenario.sharedIcons
            keys = scenario.keys?.carried
        }

        var scenario: Scenario {
            var scenario = Scenario(name: name, summary: summary, steps: steps)
            scenario.slowRows = slowRows
            scenario.slowSeconds = slowSeconds
            scenario.rowRules = rowRules.map { (rows: $0.rows, behavior: $0.behavior) }
            scenario.startsOffline = startsOffline
            scenario.jitter = jitter
            scenario.sharedIcons = sharedIcons
            if let keys {
                scenario.keys = PlayKeys()
                scenario.keys?.carryOn(from: keys)
            }
            return scenario
        }
    }

    /// The result a child hands over: its report and its timeline, and a session's keys as they were played.
    struct Result: Codable {
        var report: Report
        var timeline: Timeline
        var keys: PlayKeys.Carried?
    }

    /// `setup`, made to play a story that relaunches in new processes.
    static func routed(_ setup: ScenarioSetup) -> ScenarioSetup {
        var setup = setup
        setup.newProcesses = { await play($0) }
        return setup
    }

    /// Plays `setup` in new processes of this test binary; a child that hands
    /// nothing over is a run stopped with what it said, so the test that asked sees why.
    static func play(_ setup: ScenarioSetup) async -> ScenarioResult {
        let story = Story(
            controller: _mangledTypeName(setup.controller) ?? "", lesson: setup.lesson, title: setup.title,
            scenario: ScenarioText(setup.scenario), options: setup.options,
            catalog: setup.catalog.source == AppCatalog.bundled().source ? nil : setup.catalog.source.path,
            cachesDirectory: setup.cachesDirectoryIsScratch ? nil : setup.cachesDirectory.path,
            hangLimitSeconds: setup.hangLimit.components.seconds)
        var child = ChildProcess.scenario(
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
            ["--testing-library", "xctest", "OperationLessonsTests.NewProcessEntry/testPlayTheStoryAsked"])
        do {
            child.environment[variable] = String(decoding: try JSONEncoder().encode(story), as: UTF8.self)
            // The story's own hang guard stops a story that does not move; this one stops a child that never ends.
            let run = try await child.finished(watchdog: Watchdog(limit: .seconds(300)))
            if let ranFor = run.stoppedAfter {
                return await stopped(setup, "its processes were stopped after \(ranFor): \(run.errors.suffix(2000))")
            }
            // In the Thread Sanitizer leg a race in the child is the test's, as it would be played in this process.
            if run.errors.contains("WARNING: ThreadSanitizer") {
                Issue.record(
                    "Thread Sanitizer reported a race in \(setup.scenario.name)'s processes:\n\(run.errors.suffix(4000))")
            }
            guard let data = run.report else {
                return await stopped(setup, "its processes handed nothing over: \(run.errors.suffix(2000))")
            }
            let result = try JSONDecoder().decode(Result.self, from: data)
            if let keys = result.keys { setup.scenario.keys?.carryOn(from: keys) }
            return ScenarioResult(report: result.report, timeline: result.timeline)
        } catch {
            return await stopped(setup, "\(error)")
        }
    }

    /// A run that could not be played in new processes: played here up to its relaunch, where it stops, saying why.
    private static func stopped(_ setup: ScenarioSetup, _ why: String) async -> ScenarioResult {
        var setup = setup
        setup.newProcesses = nil
        let result = await ScenarioRunner.run(setup)
        var report = result.report
        report.clock.stuck = "the story could not be played in new processes: \(why)"
        return ScenarioResult(report: report, timeline: result.timeline)
    }

    /// The story this process is asked to play, if it is a child of `play`.
    static var asked: Story? {
        guard let json = ProcessInfo.processInfo.environment[variable] else { return nil }
        return try? JSONDecoder().decode(Story.self, from: Data(json.utf8))
    }
}

/// The child's side of `NewProcessRuns`: does nothing in any other run of the tests. An XCTest case, because a
/// child of a relaunching story starts at least twice (its first launch, then each relaunch replaces it with this
/// binary again): through XCTest's list of cases a start costs 8 ms of CPU, through Swift Testing's discovery of
/// every test (its `--filter` names them all) 78 ms, most of what a relaunching story cost.
final class NewProcessEntry: XCTestCase {
    /// Plays the story, hands its result over on the report channel and ends the process: as a step's executable,
    /// this thread then serves the main queue, where the story plays, and never returns.
    func testPlayTheStoryAsked() {
        guard NewProcessRuns.asked != nil else { return }
        Task.detached { await NewProcessEntry.playAndEnd() }
        dispatchMain()
    }

    /// Ends the process: 0 once the result is handed over, 1 with why on standard error (which the parent reports
    /// when it is handed nothing).
    private static func playAndEnd() async {
        var status: Int32 = 0
        do {
            try await play(NewProcessRuns.asked)
        } catch {
            FileHandle.standardError.write(Data("the story could not be played: \(error)\n".utf8))
            status = 1
        }
        exit(status)
    }

    struct Refused: Error, CustomStringConvertible {
        let description: String
    }

    private static func play(_ story: NewProcessRuns.Story?) async throws {
        guard let story else { throw Refused(description: "no story could be read from \(NewProcessRuns.variable)") }
        try await play(story)
    }

    private static func play(_ story: NewProcessRuns.Story) async throws {
        guard let controller = _typeByName(story.controller) as? any LessonController.Type else {
            throw Refused(description: "no controller is named \(story.controller)")
        }
        let catalog = try story.catalog.map { try AppCatalog.load(from: URL(fileURLWithPath: $0)) } ?? .bundled()
        var setup = ScenarioSetup(
            lesson: story.lesson, title: story.title, controller: controller, scenario: story.scenario.scenario,
            options: story.options, catalog: catalog,
            cachesDirectory: story.cachesDirectory.map { URL(fileURLWithPath: $0) } ?? Self.cachesDirectory)
        setup.hangLimit = .seconds(story.hangLimitSeconds)
        setup.relaunchesAsNewProcess = true
        setup.carried = try CarriedLaunch.fromEnvironment()
        // The first launch starts on an empty folder of its own; a relaunch, on the folder as the last one left it.
        if story.cachesDirectory == nil, setup.carried == nil {
            try? FileManager.default.removeItem(at: Self.cachesDirectory)
        }
        let result = await ScenarioRunner.run(setup)
        if story.cachesDirectory == nil { try? FileManager.default.removeItem(at: Self.cachesDirectory) }
        let handed = NewProcessRuns.Result(
            report: result.report, timeline: result.timeline, keys: setup.scenario.keys?.carried)
        guard ReportChannel.send(String(decoding: try JSONEncoder().encode(handed), as: UTF8.self), program: "tests")
        else { throw Refused(description: "the report channel took nothing") }
    }

    /// A caches folder of the child's own, the same for each of its processes (the PID survives `execv`).
    static let cachesDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "OperationLessons-story-\(getpid())")
}
