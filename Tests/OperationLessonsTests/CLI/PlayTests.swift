import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit
import TerminalKit
import Testing

@testable import Lesson05OperationPool

/// `lessons play N`: the learner's keys as the script, live on a terminal or
/// replayed from a file, measured as every scenario is.
@Suite struct PlayTests {
    /// Step 5 played with `script`'s keys, unpaced, on a cold cache.
    static func replay(_ script: String) async throws -> (result: ScenarioResult, keys: PlayKeys) {
        let keys = PlayKeys(script: try PlayScript(script, file: "session.keys"))
        var scenario = Scenario(name: "play", summary: "a replayed session", steps: [])
        scenario.keys = keys
        let result = await ScenarioRunner.run(
            NewProcessRuns.routed(
                ScenarioSetup(
                    lesson: "05", title: "operation pool", controller: Lesson05OperationPool.AppsViewController.self,
                    scenario: scenario)))
        return (result, keys)
    }

    static let session = """
        # a session of lessons play 5
        1 down
        1.1 down
        1.2 down
        3 pgdn
        5 m
        6.5 up
        8 o
        9 r
        12 q
        """

    @Test func aReplayedSessionGivesExactFigures() async throws {
        let report = try await Self.replay(Self.session).result.report
        #expect(report.scenario == "play")
        #expect(report.durationMs == 12000)
        #expect(report.frames == 721)
        #expect(report.requests == 32 && report.uniqueURLs == 23 && report.failedRequests == 8)
        #expect(report.requestsStartedWhileScrolling == 11)
        #expect(report.requestsAfterRelaunch == 8)
        #expect(report.timeToAllVisibleMs.map { Int($0.rounded()) } == 2517)
        #expect(report.wrongImageFrames == 0)
    }

    /// The keys a session played, written as a script, replay it figure for figure.
    @Test func aSessionsKeysReplayToTheSameFigures() async throws {
        let first = try await Self.replay(Self.session)
        let session = first.keys.session
        #expect(try PlayScript(session.text, file: "recorded.keys") == session)
        let again = try await Self.replay(session.text).result.report
        let report = first.result.report
        #expect(again.requests == report.requests && again.frames == report.frames)
        #expect(again.durationMs == report.durationMs && again.timeToAllVisibleMs == report.timeToAllVisibleMs)
        #expect(again.requestsStartedWhileScrolling == report.requestsStartedWhileScrolling)
    }

    /// One press scrolls a row; presses that pile up (a held key) flick three times their rows.
    @Test func aHeldKeyFlicks() async throws {
        let one = try await Self.replay("1 down\n2 q").result.timeline.events.map(\.label)
        #expect(one.contains("drag to row 1"))
        let held = try await Self.replay("1 down\n1 down\n1 down\n1 down\n3 q").result.timeline.events.map(\.label)
        #expect(held.contains("drag to row 12"))
        #expect(!held.contains("drag to row 1"))
    }

    /// `s` slows the rows on screen: after a relaunch (step 5 keeps no icon
    /// on disk) their icons take 5 s or more, where before they took 0.5 s.
    @Test func sSlowsTheVisibleRows() async throws {
        let result = try await Self.replay("2 s\n2.5 r\n40 q").result
        let before = result.timeline.requests.filter { $0.startMs < 2000 }
        let after = result.timeline.requests.filter { $0.startMs >= 2500 }
        #expect(before.count == 8 && after.count == 8)
        #expect(before.allSatisfy { ($0.endMs ?? 0) - $0.startMs == 500 })
        #expect(after.allSatisfy { ($0.endMs ?? 0) - $0.startMs >= 5000 })
    }

    @Test func aScriptThatCannotBePlayedIsSaidInOneSentence() throws {
        func problem(_ text: String) -> String? {
            do {
                _ = try PlayScript(text, file: "my.keys")
                return nil
            } catch {
                return error.description
            }
        }
        #expect(problem("1 dwn") == "my.keys line 1: 'dwn' is not a key; the keys are \(PlayKey.names)")
        #expect(problem("# only\n\ndown") == "my.keys line 3: 'down' is not a story second and a key, as in '2.5 down'")
        #expect(problem("2 down\n1 up") == "my.keys line 2: 1 s comes before the line above's 2.0 s")
        #expect(problem("-1 up") == "my.keys line 1: '-1 up' is not a story second and a key, as in '2.5 down'")
        #expect(problem("# nothing\n") == "my.keys holds no keys")
        #expect(try PlayScript("1 down", file: "my.keys").keys.last?.key == .quit)
    }

    @Test func terminalBytesAreKeys() {
        var decoder = PlayKeyDecoder()
        let bytes = Array("\u{1B}[A\u{1B}OB\u{1B}[5~\u{1B}[6~\u{1B}[1;5Cmq?".utf8) + [RawTerminal.controlC]
        #expect(
            bytes.compactMap { decoder.key(for: $0) } == [
                .up, .down, .pageUp, .pageDown, .memoryWarning, .quit, .keys, .quit,
            ])
    }

    // MARK: on a terminal

    /// The lines of what a terminal was sent, its escape sequences taken out.
    static func screenLines(_ output: String) -> [String] {
        let text = output.replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[A-Za-z]", with: "\n", options: .regularExpression)
        return text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }).map(String.init)
    }

    static func scratchCaches() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("play-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test(.onATerminal) func aScriptReplaysOnAnEightyColumnTerminal() async throws {
        let folder = try Self.scratchCaches()
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appendingPathComponent("session.keys")
        try Self.session.write(to: script, atomically: true, encoding: .utf8)
        let run = try await PseudoTerminal.run(
            "lessons", arguments: ["play", "5", "--script", script.path, "--no-pace"],
            environment: ["XDG_CACHE_HOME": folder.path], size: (24, 80))
        #expect(run.status == 0, "\(run.output.suffix(800))")
        #expect(run.output.contains("scenario play: the keys of /"))
        #expect(run.output.contains("Network: 32 requests for 23 icons, 8 failed"))
        #expect(run.output.contains("After the relaunch: 8 requests."))
        let wide = Self.screenLines(run.output).filter { TerminalText.width(of: $0) > 80 }
        #expect(wide.isEmpty, "\(wide)")
    }

    /// Every key says under the table what it did, even those the table may
    /// not show at once: a memory warning, rows slowed whose icons are there.
    @Test(.onATerminal) func everyKeySaysWhatItDid() async throws {
        let folder = try Self.scratchCaches()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try await PseudoTerminal.run(
            "lessons", arguments: ["play", "5", "--speed", "4"],
            keys: [
                .type("m", after: "keys: ↑↓ PgUp PgDn scroll"),
                .type("s", after: "m a memory warning, sent to the app"),
                .type("q", after: "load slowly from now"),
            ],
            environment: ["XDG_CACHE_HOME": folder.path], size: (24, 80))
        #expect(run.status == 0, "\(run.output.suffix(800))")
        #expect(run.restored)
        #expect(run.output.contains("last key, at "))
        let wide = Self.screenLines(run.output).filter { TerminalText.width(of: $0) > 80 }
        #expect(wide.isEmpty, "\(wide)")
    }

    /// `r` relaunches the app as a new process, as a scenario's relaunch does: the step's executable replaces
    /// itself, the keys and the raw terminal carried across; step 6 finds its 8 files again, and the terminal is
    /// put back as it was after `q`.
    @Test(.onATerminal) func rRelaunchesAsANewProcess() async throws {
        let folder = try Self.scratchCaches()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try await PseudoTerminal.run(
            "lessons", arguments: ["play", "6", "--speed", "4"],
            keys: [
                // Once every visible row has its file on disk: the status line's count, not the first icon.
                .type("r", after: "requests 8 (8 icons, 0 dup) · in flight 0"),
                .type("q", after: "r the app relaunched: a new process"),
            ],
            environment: ["XDG_CACHE_HOME": folder.path], size: (24, 80))
        #expect(run.status == 0, "\(run.output.suffix(800))")
        #expect(run.restored)
        #expect(run.output.contains("Requests at each launch: 8 (0 files on disk), then 0 (8 files on disk)."))
    }

    /// Live: the keys line under the table, ↓ and m typed, ? for the keys, q for the report.
    @Test(.onATerminal) func theKeysPlayTheTableLive() async throws {
        let folder = try Self.scratchCaches()
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = try await PseudoTerminal.run(
            "lessons", arguments: ["play", "5", "--speed", "4"],
            keys: [
                .type("\u{1B}[Bm?", after: "keys: ↑↓ PgUp PgDn scroll"),
                .type("q", after: "m memory warning · o offline/online"),
            ],
            environment: ["XDG_CACHE_HOME": folder.path], size: (24, 80))
        #expect(run.status == 0, "\(run.output.suffix(800))")
        #expect(run.restored)
        #expect(run.output.contains("scenario play · seed 1"))
        #expect(run.output.contains("After the memory warning the app kept"))
        let wide = Self.screenLines(run.output).filter { TerminalText.width(of: $0) > 80 }
        #expect(wide.isEmpty, "\(wide)")
    }
}

/// Every exercise's workbench can be played by hand: exercise 9's machine by
/// its button (`Workbench --play`, what `lessons task 9` gives), each key
/// saying what it did; exercises 8 and 10, whose code has no screen, say so.
@Suite struct WorkbenchPlayTests {
    /// The fixture is exercise 9's workbench as `lessons exercise 9` writes it.
    @Test func theFixtureIsTheWorkbenchTheExerciseWrites() throws {
        let exercise = try #require(ExerciseCatalog.exercise(9))
        let call = try #require(exercise.workbenchMain.split(separator: "\n").last { $0.hasPrefix("exit(") })
        let fixture = try String(
            contentsOf: Rig.packageRoot.appendingPathComponent("Tests/Fixtures/LotteryWorkbench/main.swift"),
            encoding: .utf8)
        #expect(fixture.contains(call))
        #expect(exercise.playCommand == WorkbenchLayout.run + " --play")
    }

    @Test(.onATerminal) func exerciseNinesMachineIsPlayedByHandAndEveryKeySaysWhatItDid() async throws {
        let run = try await PseudoTerminal.run(
            "LotteryWorkbenchFixture", arguments: ["--play", "--speed", "4"],
            keys: [
                .type(" ", after: "space or enter: press the button"),
                // Each wait is for words that fit on one line of the 80 columns.
                .type("x", after: #"space pressed the button "start"; it now"#),
                .type("\u{1B}[A", after: "'x' does nothing here"),
                .type("\r", after: "that key does nothing here"),
                .type("q", after: #"Enter pressed the button "pause"; it"#),
            ], size: (24, 80))
        #expect(run.status == 0, "\(run.output.suffix(800))")
        #expect(run.restored)
        #expect(run.output.contains("Your workbench, exercise 9 (the lottery machine) · your machine"))
        #expect(PlayTests.screenLines(run.output).contains { $0.contains(#"now reads "resume""#) })
        #expect(run.report == nil)
        // The workbench shows the problem, never the step's fix.
        #expect(run.output.contains("Your task"))
        #expect(!run.output.contains("The lesson:"))
        let wide = PlayTests.screenLines(run.output).filter { TerminalText.width(of: $0) > 80 }
        #expect(wide.isEmpty, "\(wide)")
    }

    @Test func playWithoutATerminalIsOneSentence() async throws {
        let run = try await LessonProcess.run("LotteryWorkbenchFixture", ["--play"])
        #expect(run.status == 2)
        #expect(run.errors.contains("--play needs a terminal for its keys"), "\(run.errors)")
    }
}
