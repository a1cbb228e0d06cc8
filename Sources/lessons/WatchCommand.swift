import Foundation
import LessonChecks
import LessonKit

/// `lessons watch [N]`: `lessons check` now, and again each time a Swift file
/// under `Workbench/Sources/Workbench/` or the workbench's manifest is saved
/// (`FolderState`), with what changed since the check before. On a terminal it takes rustlings' keys (`WorkbenchWatch.keyLine`).
/// `q` or Ctrl-C ends it, and the build or workbench running with it
/// (`ChildProcess.endChildrenOnSignals`, in main.swift).
enum WatchCommand: LessonsCommand {
    static let name = "watch"
    static let abstract = "check the workbench now and on every save, and say which bugs went ✗ → ✓ (or back)"
    static var flags: FlagTable<ExerciseOptions> {
        ExerciseOptions.table(
            number: "the exercise to check against (default: the one the workbench holds, at each check)",
            [
                .value(
                    "--max-checks", .wholeNumber("N", in: 1...1000), \.maxChecks,
                    help: "stop after N checks (default: until q or Ctrl-C)")
            ])
    }

    static let about = """
        Each check is lessons check's. The Swift files under \(WorkbenchLayout.code) and \
        \(WorkbenchLayout.package)/Package.swift are looked at twice a second (what your program writes is no save); a check \
        starts half a second after the last save, and what was saved while one ran is checked after it. On a \
        terminal, keys: h the hint's next level, c check now, n the next exercise (once solved), l the list, \
        r reset (then type the word reset and press Enter: nothing else confirms it), q quit.
        """

    /// How often the files are looked at, and how long they must stay as they are before a check starts.
    static let pollInterval = 0.5

    static func run(_ options: ExerciseOptions) throws -> Int32 {
        let workspace = try Workspace.find(root: options.root)
        var number = options.number
        // Before the first check, so a number that names nothing is said at once.
        _ = try exercise(try number ?? workspace.currentExercise())
        let sources = {
            FolderState(
                workspace.workbench, manifest: workspace.workbenchPackage.appendingPathComponent("Package.swift"))
        }
        var checked = sources()
        // Ctrl-C stays a signal: it must end a build or a check that is running.
        let keyboard = RawTerminal.enter(keepingInterrupt: true).map { terminal in
            let keys = KeyQueue()
            terminal.readKeys { keys.add($0) }
            return keys
        }
        let watch = WorkbenchWatch(
            nextEvent: { nextEvent(since: checked, keys: keyboard, sources: sources) },
            check: {
                checked = sources()
                return try CheckCommand.check(try exercise(try number ?? workspace.currentExercise()), workspace)
                    .results
            },
            say: { say("\n" + $0) },
            keys: keyboard.map { _ in
                WorkbenchWatch.Keys(
                    hint: {
                        let current = try number ?? workspace.currentExercise()
                        // The first h shows the level reached; each one after it, the next.
                        let seen = try workspace.progress().hintLevels?[String(current)] != nil
                        _ = try HintCommand.run(
                            ExerciseOptions(root: options.root, number: current, more: seen))
                    },
                    list: { _ = try ExerciseCommand.list(workspace) },
                    reset: {
                        let current = try exercise(try number ?? workspace.currentExercise())
                        _ = try WorkbenchChange.start(current, workspace, yes: true, reset: true)
                    },
                    next: {
                        guard let next = try moveOn(from: try number ?? workspace.currentExercise(), workspace, keyboard)
                        else { return false }
                        number = next
                        return true
                    })
            },
            maxChecks: options.maxChecks)
        let last = try watch.run()
        return last?.allPassed == true ? 0 : 1
    }

    /// The workbench moved on to the exercise after `current`, the learner's code kept if they choose so (their
    /// word typed on `keyboard`): its number, or nil when there is none or they chose neither (said).
    private static func moveOn(from current: Int, _ workspace: Workspace, _ keyboard: KeyQueue?) throws -> Int? {
        guard let next = NextCommand.exercise(after: current, try workspace.progress()) else {
            say("Every exercise is solved. Compare yours with the steps: swift run lessons solution N")
            return nil
        }
        var keepMine = false
        if let held = try CarriedCode.offered(for: next, workspace), let keyboard {
            say("\n" + CarriedCode.question(held, into: next) + "?\n" + keepQuestion(held))
            switch keyboard.word(among: [keepWord, referenceWord]) {
            case keepWord?: keepMine = true
            case referenceWord?: break
            default:
                say("Nothing changed.")
                return nil
            }
        }
        _ = try WorkbenchChange.start(next, workspace, yes: true, reset: false, keepMine: keepMine)
        return next.number
    }

    /// The words that answer whether `n` keeps the learner's code: typed, then Enter, so that no ordinary word
    /// typed into the watch chooses for them (as `r` asks for the word reset).
    static let keepWord = "mine"
    static let referenceWord = "step"

    static func keepQuestion(_ held: Exercise) -> String {
        "Type \(keepWord) and press Enter to go on with your code (a copy is kept), or \(referenceWord) and Enter "
            + "for the code step \(held.number) ends with (yours goes to a backup); any other key changes nothing."
    }

    /// Blocks until a key is typed, or the `sources` differ from `state` and
    /// then stay as they are for a poll (an editor saving in several writes).
    static func nextEvent(
        since state: FolderState, keys: KeyQueue?, sources: () -> FolderState
    ) -> WorkbenchWatch.Event {
        var seen = state
        while true {
            if let keys {
                if let key = keys.take(waitingAtMost: pollInterval) { return .key(key) }
            } else {
                Thread.sleep(forTimeInterval: pollInterval)
            }
            let now = sources()
            if now == seen && now != state { return .saved(now.changes(since: state)) }
            seen = now
        }
    }
}

/// The keys typed while watching, handed from the keyboard's thread to the
/// watch loop, which takes them one at a time, in order.
final class KeyQueue: @unchecked Sendable {
    // NSCondition, not Mutex: the loop waits for a key with a deadline.
    private let condition = NSCondition()
    private var keys: [Character] = []

    func add(_ byte: UInt8) {
        condition.lock()
        keys.append(Character(Unicode.Scalar(byte)))
        condition.signal()
        condition.unlock()
    }

    /// One of `words`, typed (and shown as it is typed) then Enter; nil at the first key that
    /// leads to none of them.
    func word(among words: [String]) -> String? {
        var typed = ""
        while true {
            guard let key = take(waitingAtMost: 3600) else { continue }
            if key == "\n" || key == "\r" {
                StandardStream.output.write("\n")
                return words.contains(typed) ? typed : nil
            }
            typed.append(key)
            guard words.contains(where: { $0.hasPrefix(typed) }) else {
                StandardStream.output.write("\n")
                return nil
            }
            StandardStream.output.write(String(key))
        }
    }

    /// The next key typed, or nil when none comes within `seconds`.
    func take(waitingAtMost seconds: Double) -> Character? {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while keys.isEmpty {
            guard condition.wait(until: deadline) else { return nil }
        }
        return keys.removeFirst()
    }
}
