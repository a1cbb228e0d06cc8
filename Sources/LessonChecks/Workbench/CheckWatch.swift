import Foundation
import HarnessSync
import LessonKit

/// The watchdog of one run of the workbench, and what it says when it stops one.
///
/// A learner's endless loop on the main queue (in `cellForRowAt`, say) stops
/// the story clock's own hang guard too, since that guard runs on the main
/// queue: the run would never end. So the run is watched from outside. The
/// workbench says "playing NAME: …" as each scenario starts; a scenario gets
/// the longest its story can take, as if played for a person at `--speed 1`
/// (unpaced, the checks take a small part of that), plus the 30 s the story
/// clock waits for a busy app before it ends a run itself
/// (`ScenarioSetup.hangLimit`). The workbench itself stops a scenario's process at that limit, asking it first
/// where it was (`watchdog(_:)`); this watch waits a little longer, for what that stop says. Exercises 8 and 9 play
/// no scenario: their checks time themselves out within a minute, and get two. Every limit is counted as a
/// `Watchdog` counts, in the processor time of the process and what it started and in stretches where none of
/// their threads could run: an endless loop or a deadlock meets it as on an idle machine, a loaded machine never.
public final class CheckWatch: @unchecked Sendable {
    public static let hangLimit = Duration.seconds(30)
    public static let otherChecksLimit = Duration.seconds(120)
    /// What a scenario's own watchdog may take past its limit: the backtrace it asks for, and the stop.
    public static let stopMargin = Duration.seconds(30)

    /// The longest a scenario's process may run: its longest story, plus the story clock's hang guard.
    public static func limit(_ scenario: Scenario) -> Duration { scenario.longestStory + hangLimit }

    /// The watchdog of a scenario's process: at its limit the process is asked where it is, then stopped.
    public static func watchdog(_ scenario: Scenario) -> Watchdog {
        Watchdog(limit: limit(scenario), asksForBacktrace: true)
    }

    public let watchdog: Watchdog
    private let lock = Locked(.seen)
    /// The scenario playing and since when, and the start of a line not ended yet.
    private var scenario: Scenario?
    private var since = ContinuousClock.now
    private var pending = Data()
    /// How much of a line is kept: a "playing NAME:" line is far shorter.
    static let keptOfALine = 200

    public init(_ exercise: Exercise) {
        watchdog = Watchdog(
            limit: exercise.kind == .imageList ? Self.hangLimit : Self.otherChecksLimit, asksForBacktrace: true)
    }

    /// Reads the workbench's output as it comes, a line at a time. Each byte
    /// is looked at once and only a line's start is kept: 20 MB printed
    /// without a newline, split again whole at each piece, once held the
    /// reader (and the story writing to it) until the run was stopped.
    public func saw(_ data: Data) {
        let lines: [String] = lock.withLock {
            var lines: [String] = []
            var rest = data[...]
            while let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
                keep(rest[..<newline])
                lines.append(String(decoding: pending, as: UTF8.self))
                pending.removeAll(keepingCapacity: true)
                rest = rest[(newline + 1)...]
            }
            keep(rest)
            return lines
        }
        for line in lines {
            let words = line.split(separator: " ")
            if words.first == "playing", let name = words.dropFirst().first {
                playing(String(name.dropLast(name.hasSuffix(":") ? 1 : 0)))
            }
        }
    }

    /// Under the lock: `bytes` added to the line's start, up to `keptOfALine`.
    private func keep(_ bytes: Data) {
        pending.append(bytes.prefix(max(0, Self.keptOfALine - pending.count)))
    }

    /// The bytes held of a line not ended yet: never more than `keptOfALine`, however long the line.
    public var held: Int { lock.withLock { pending.count } }

    /// A scenario starts: it gets its own limit, from now.
    public func playing(_ name: String) {
        guard let scenario = Scenario.named(name) else { return }
        lock.withLock { (self.scenario, since) = (scenario, .now) }
        watchdog.restart(limit: Self.limit(scenario) + Self.stopMargin)
    }

    /// A scenario's process stopped by its watchdog after `ranFor`: what to say first (the stop and the line it
    /// was stuck on, read from the backtrace in `errors`), and the phrase its verdicts give as the reason.
    public static func stopped(_ scenario: Scenario, after ranFor: Duration, errors: String) -> (
        said: String, phrase: String
    ) {
        let place = WorkbenchDiagnostics.stuckPlace(errors)
        let seconds = "\(Int(ranFor.components.seconds)) s"
        let said =
            ["✗ stopped after \(seconds): " + neverCameBack(scenario)]
            + (place.map { ["  It was here: \($0)"] } ?? [])
        return (
            said.joined(separator: "\n  "),
            "was stopped after \(seconds), its main queue never back" + (place.map { " (it was at \($0))" } ?? "")
        )
    }

    /// A scenario the story clock's own hang guard stopped (`stuck`, its reason): said before any verdict, with
    /// where the app's threads were when the backtrace the run asked for (`errors`) has a line of its code.
    public static func stoppedByTheClock(_ scenario: Scenario, _ stuck: String, errors: String) -> String {
        "✗ stopped: the story clock ended the \(scenario.name) run, so no verdict reads it: "
            + stuck.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "; ")
            + (WorkbenchDiagnostics.waitingPlace(errors).map { "\n  It was here: \($0)" } ?? "")
    }

    /// Why a scenario never ends, for a learner.
    private static func neverCameBack(_ scenario: Scenario) -> String {
        "the \(scenario.name) run (\(scenario.summary)) takes \(Int(scenario.longestStory.components.seconds)) s at "
            + "most, even played at the speed a person watches it, and the story clock ends a run by itself after "
            + "\(Int(hangLimit.components.seconds)) s in which the app stays busy. So the main queue never came back: "
            + "an endless loop, or a wait that never ends, in code the main queue runs (cellForRowAt, a block added "
            + "to OperationQueue.main)."
    }

    public func stoppedMessage(after ranFor: Duration, errors: String) -> String {
        let (scenario, since) = lock.withLock { (self.scenario, self.since) }
        let seconds = { (duration: Duration) in "\(Int(duration.components.seconds)) s" }
        var lines: [String]
        if let scenario {
            lines = [
                "✗ The workbench was stopped after \(seconds(.now - since)), playing scenario \(scenario.name): "
                    + Self.neverCameBack(scenario)
            ]
        } else {
            lines = ["✗ The workbench was stopped after \(seconds(ranFor)): its checks never finished."]
        }
        if let place = WorkbenchDiagnostics.stuckPlace(errors) {
            lines.append("  It was here: \(place)")
        }
        lines.append("A run that never ends counts as not fixed. Watch it: \(WorkbenchLayout.run)")
        return lines.joined(separator: "\n")
    }
}
