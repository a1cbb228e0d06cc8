import Foundation
import HarnessSync

/// A key of `lessons play`: what the learner does to the table by hand.
public enum PlayKey: String, CaseIterable, Codable, Sendable {
    case up, down
    case pageUp = "pgup"
    case pageDown = "pgdn"
    case memoryWarning = "m"
    case offline = "o"
    case relaunch = "r"
    case slow = "s"
    case keys = "?"
    case quit = "q"

    /// The names a script spells the keys with, in the order `?` lists them.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// The key-driven part of a played scenario: the keys pressed (live) or
/// replayed (`--script`), turned into script steps as the runner asks for
/// them, one step at a time, on the story clock.
///
/// Keys that pile up while a scroll is under way (a held key repeating) become
/// one flick of three times their rows, as a thumb that keeps swiping does.
public final class PlayKeys: @unchecked Sendable {
    private let lock = Locked(.seen)
    /// Keys not yet played, in order; a replayed key waits for its story time, a live one is due at once.
    private var waiting: [(seconds: Double?, key: PlayKey)]
    private var isOffline: Bool
    private var quit = false
    private var showsKeys = false
    /// Every key played, at the story time it took effect: the session as a script.
    private var played: [PlayScript.Press] = []
    /// What the last key did, said under the table.
    private var done: String?

    /// A live session (`script` nil) or the replay of a script; `startsOffline`: `o` first goes online.
    public init(script: PlayScript? = nil, startsOffline: Bool = false) {
        waiting = script?.keys.map { ($0.seconds, $0.key) } ?? []
        isOffline = startsOffline
    }

    private var decoder = PlayKeyDecoder()

    /// A byte typed now (from the keyboard's thread): a key once it makes one.
    public func type(_ byte: UInt8) {
        lock.withLock {
            if let key = decoder.key(for: byte) { waiting.append((nil, key)) }
        }
    }

    /// Whether `q` has been played: the run ends once its steps are done.
    public var hasQuit: Bool { lock.withLock { quit } }

    /// What the last key played did, and when: every key answers on the
    /// screen, even one the table does not show at once (a memory warning, a
    /// slowed row whose icon was already there).
    public var lastDone: String? { lock.withLock { done } }

    /// Whether `?` asked for the list of keys (it toggles).
    public var isShowingKeys: Bool { lock.withLock { showsKeys } }

    /// The keys played so far, as a script that replays them.
    public var session: PlayScript {
        lock.withLock { PlayScript(keys: played) }
    }

    /// Whether a key still to come relaunches the app (a replayed `r`); a live session's keys are not known yet.
    public var relaunches: Bool {
        lock.withLock { waiting.contains { $0.key == .relaunch } }
    }

    /// The session as a relaunch carries it into the app's next process (`CarriedLaunch`).
    struct Carried: Codable, Sendable {
        struct Waiting: Codable, Sendable {
            var seconds: Double?
            var key: PlayKey
        }
        var waiting: [Waiting]
        var isOffline: Bool
        var quit: Bool
        var showsKeys: Bool
        var played: [PlayScript.Press]
        var done: String?
    }

    var carried: Carried {
        lock.withLock {
            Carried(
                waiting: waiting.map { Carried.Waiting(seconds: $0.seconds, key: $0.key) }, isOffline: isOffline,
                quit: quit, showsKeys: showsKeys, played: played, done: done)
        }
    }

    /// Goes on with the session the app's earlier process played: its keys still to come (a script's read again
    /// here are dropped), then those typed here since.
    func carryOn(from carried: Carried) {
        lock.withLock {
            waiting = carried.waiting.map { ($0.seconds, $0.key) } + waiting.filter { $0.seconds == nil }
            isOffline = carried.isOffline
            quit = carried.quit
            showsKeys = carried.showsKeys
            played = carried.played
            done = carried.done
        }
    }

    /// The step the keys due at `seconds` ask for, nil if none does yet, for
    /// a table whose top is at row `topRow` and which shows `visibleRows`.
    func next(atSeconds seconds: Double, topRow: Double, visibleRows: [Int]) -> Scenario.Step? {
        lock.withLock {
            while let first = waiting.first, !quit, first.seconds.map({ $0 <= seconds }) ?? true {
                let pressed = due(first.key, atSeconds: seconds)
                waiting.removeFirst(pressed)
                played += repeatElement(PlayScript.Press(seconds: seconds, key: first.key), count: pressed)
                let step = step(for: first.key, pressed: pressed, topRow: topRow, visibleRows: visibleRows)
                done = "last key, at \(Self.story(seconds)): " + Self.said(first.key, step, isOffline, showsKeys)
                if let step { return step }
            }
            return nil
        }
    }

    /// How many presses of `key` in a row are due now: one, or for a scroll
    /// key, all those that piled up.
    private func due(_ key: PlayKey, atSeconds seconds: Double) -> Int {
        guard [.up, .down, .pageUp, .pageDown].contains(key) else { return 1 }
        return waiting.prefix { $0.key == key && ($0.seconds.map { $0 <= seconds } ?? true) }.count
    }

    private static func story(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) s"
    }

    /// What `key` did, played as `step`.
    private static func said(_ key: PlayKey, _ step: Scenario.Step?, _ isOffline: Bool, _ showsKeys: Bool) -> String {
        let name = [PlayKey.up: "↑", .down: "↓", .pageUp: "PgUp", .pageDown: "PgDn"][key] ?? key.rawValue
        switch step {
        case .drag(let row, _)?: return "\(name) scrolled to row \(Int(row))"
        case .fling(let row, _)?: return "\(name) held: flicked to row \(Int(row))"
        case .slowDown(let rows)?:
            guard let first = rows.min(), let last = rows.max() else { return "s no row is on screen to slow" }
            return "s rows \(first)–\(last) load slowly from now"
        default: break
        }
        switch key {
        case .memoryWarning: return "m a memory warning, sent to the app"
        case .offline: return isOffline ? "o the network is offline" : "o the network is back online"
        case .relaunch: return "r the app relaunched: a new process, on the same disk cache"
        case .keys: return showsKeys ? "? the keys, listed" : "? the keys, hidden"
        case .quit: return "q quit: the report comes once the table is still"
        default: return key.rawValue
        }
    }

    private func step(for key: PlayKey, pressed: Int, topRow: Double, visibleRows: [Int]) -> Scenario.Step? {
        let page = Double(max(1, visibleRows.count))
        let rows: Double
        switch key {
        case .up: rows = -1
        case .down: rows = 1
        case .pageUp: rows = -page
        case .pageDown: rows = page
        case .memoryWarning: return .memoryWarning
        case .offline:
            isOffline.toggle()
            return isOffline ? .goOffline : .goOnline
        case .relaunch: return .relaunch
        case .slow: return .slowDown(rows: visibleRows)
        case .keys:
            showsKeys.toggle()
            return nil
        case .quit:
            quit = true
            return nil
        }
        let target = max(0, (topRow + rows * Double(pressed == 1 ? 1 : 3 * pressed)).rounded())
        if pressed > 1 { return .fling(toRow: target, seconds: 1) }
        return .drag(toRow: target, seconds: abs(rows) == 1 ? 0.2 : 0.4)
    }
}

/// A session of `lessons play` as text: a line per key, its story second,
/// then its name (`2.5 down`); `#` starts a comment. Times never go back.
/// A script that does not quit gets a `q` at its last key's time.
public struct PlayScript: Sendable, Equatable {
    public struct Press: Codable, Sendable, Equatable {
        public let seconds: Double
        public let key: PlayKey
    }

    public let keys: [Press]

    init(keys: [Press]) {
        self.keys = keys
    }

    /// Parses a script; `file` names it in the error, a sentence saying which line is wrong and why.
    public init(_ text: String, file: String) throws(PlayScriptError) {
        var keys: [Press] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.prefix { $0 != "#" }.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty else { continue }
            let place = "\(file) line \(index + 1)"
            let words = line.split(whereSeparator: \.isWhitespace)
            guard words.count == 2, let seconds = Double(words[0]), seconds.isFinite, seconds >= 0 else {
                throw PlayScriptError("\(place): '\(line)' is not a story second and a key, as in '2.5 down'")
            }
            guard let key = PlayKey(rawValue: String(words[1])) else {
                throw PlayScriptError("\(place): '\(words[1])' is not a key; the keys are \(PlayKey.names)")
            }
            if let last = keys.last, seconds < last.seconds {
                throw PlayScriptError("\(place): \(words[0]) s comes before the line above's \(last.seconds) s")
            }
            keys.append(Press(seconds: seconds, key: key))
        }
        guard let last = keys.last else { throw PlayScriptError("\(file) holds no keys") }
        if !keys.contains(where: { $0.key == .quit }) { keys.append(Press(seconds: last.seconds, key: .quit)) }
        self.keys = keys
    }

    /// The script's text, one key a line; each time written in full, so the
    /// replay plays each key on the very frame it was played.
    public var text: String {
        keys.map { "\($0.seconds) \($0.key.rawValue)\n" }.joined()
    }
}

/// A `--script` file that cannot be played, said in one sentence naming the file.
public struct PlayScriptError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Turns the bytes a terminal sends into `PlayKey`s: arrows and PgUp/PgDn
/// come as escape sequences (`ESC [ A`, `ESC [ 5 ~`, or `ESC O A` in a
/// terminal's application mode); Ctrl-C quits like `q`. Other bytes are ignored.
public struct PlayKeyDecoder: Sendable {
    private var sequence: [UInt8] = []

    public init() {}

    public mutating func key(for byte: UInt8) -> PlayKey? {
        if byte == 0x1B {
            sequence = [byte]
            return nil
        }
        guard !sequence.isEmpty else {
            if byte == RawTerminal.controlC { return .quit }
            return PlayKey(rawValue: String(UnicodeScalar(byte)))
        }
        sequence.append(byte)
        let keys: [[UInt8]: PlayKey] = [
            Array("\u{1B}[A".utf8): .up, Array("\u{1B}OA".utf8): .up,
            Array("\u{1B}[B".utf8): .down, Array("\u{1B}OB".utf8): .down,
            Array("\u{1B}[5~".utf8): .pageUp, Array("\u{1B}[6~".utf8): .pageDown,
        ]
        if let key = keys[sequence] {
            sequence = []
            return key
        }
        // A sequence ends with a letter or `~`: one that is not ours is dropped whole.
        if sequence.count > 1 && (byte == UInt8(ascii: "~") || (byte >= 0x40 && sequence.count > 2))
            || sequence.count > 6
        {
            sequence = []
        }
        return nil
    }
}
