import Foundation

/// A step played by hand (`lessons play N`, or a step's `--play`): its table
/// on the live screen, the learner's keys as the script, or a session's keys
/// replayed from a file (`--script`). The same measures, the same report.
struct PlaySession: Sendable {
    static var flags: [Flag<LessonOptions>] {
        [
            .step("--play", help: "drive the table yourself with keys (? lists them)"),
            .step("--script", .text("FILE"), help: "replay a --play session's keys from FILE"),
            .step("--record", .text("FILE"), help: "with --play: write the session's keys to FILE"),
        ]
    }

    let keys: PlayKeys
    let scenario: Scenario
    /// Whether the keys come from the keyboard (no `--script`).
    let isLive: Bool
    let recordPath: String?

    /// The session the options ask for; nil when they do not ask to play.
    /// `liveScreen`: the run is drawn on a terminal, whose keyboard can play.
    static func from(_ options: LessonOptions, liveScreen: Bool) throws -> PlaySession? {
        let scriptPath = options.extra["script"]
        guard options.extra["play"] != nil || scriptPath != nil else {
            if options.extra["record"] != nil { throw UsageError("--record writes a --play session: give --play too") }
            return nil
        }
        if options.scenario != nil { throw UsageError("--play plays your keys: give it or --scenario, not both") }
        guard let scriptPath else {
            var scenario = Scenario(name: "play", summary: "your keys drive the table", steps: [])
            guard liveScreen && RawTerminal.inputIsTerminal else {
                throw UsageError("--play needs a terminal for its keys; replay a session with --script FILE")
            }
            if let path = options.extra["record"], let problem = OutputFile.problem(at: path) {
                throw PlayScriptError("cannot write the session to \(path): \(problem)")
            }
            let keys = PlayKeys(startsOffline: options.offline)
            scenario.keys = keys
            return PlaySession(keys: keys, scenario: scenario, isLive: true, recordPath: options.extra["record"])
        }
        let script = try PlayScript(try text(of: scriptPath), file: scriptPath)
        var scenario = Scenario(name: "play", summary: "the keys of \(scriptPath) replayed", steps: [])
        let keys = PlayKeys(script: script, startsOffline: options.offline)
        scenario.keys = keys
        return PlaySession(keys: keys, scenario: scenario, isLive: false, recordPath: options.extra["record"])
    }

    /// A script file's text; a folder, a FIFO or bytes that are not text are refused in a sentence.
    private static func text(of path: String) throws(PlayScriptError) -> String {
        let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
        guard let type else { throw PlayScriptError("cannot read the script \(path): there is no such file") }
        guard type == .typeRegular else { throw PlayScriptError("cannot read the script \(path): it is not a file") }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8)
        else { throw PlayScriptError("cannot read the script \(path): it is not UTF-8 text") }
        return text
    }

    /// Raw mode and a reader handing each key to the session, for a live one.
    func listen() -> RawTerminal? {
        guard isLive, let terminal = RawTerminal.enter() else { return nil }
        terminal.readKeys { [keys] in keys.type($0) }
        return terminal
    }

    /// The lines under the table: the keys, in short or (after `?`) in full,
    /// and what the last key did.
    var keyLines: [String] {
        let done = keys.lastDone.map { [$0] } ?? []
        guard keys.isShowingKeys else {
            return [isLive ? "keys: ↑↓ PgUp PgDn scroll · m o r s · ? the keys · q quit" : "replaying · ? the keys"]
                + done
        }
        return [
            "↑/↓ a row · PgUp/PgDn a screen (held: a flick) · q quit and report",
            "m memory warning · o offline/online · r relaunch · s slow the visible rows",
        ] + done
    }

    /// Writes the session's keys to `--record`'s file, if asked; the problem if it cannot.
    func record() -> String? {
        guard let recordPath else { return nil }
        do {
            try OutputFile.write(keys.session.text, to: recordPath)
            return nil
        } catch {
            return "cannot write the session to \(recordPath): \(error.problem)"
        }
    }
}
