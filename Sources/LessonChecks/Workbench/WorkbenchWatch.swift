import Foundation

/// `lessons watch`: the workbench checked again each time a file in it is
/// saved, and what changed since the check before said in a line or two;
/// on a terminal, rustlings' keys too.
///
/// What waits for a save or a key, what checks and what the keys do are
/// handed in, so the loop can be played in a test without a build, a clock or
/// a sleep.
public struct WorkbenchWatch {
    /// What ends a wait: a save (the files that changed), a key, or the end of watching.
    public enum Event: Equatable {
        case saved([String])
        case key(Character)
        case stop
    }

    /// What the keys do, besides `c` and `q`, which the loop does itself.
    public struct Keys {
        /// `h`: the hint's next level.
        public var hint: () throws -> Void
        /// `l`: the exercises and how far the learner is.
        public var list: () throws -> Void
        /// `r`, once the learner said yes: the exercise's starting code back.
        public var reset: () throws -> Void
        /// `n`, once solved: the next exercise in the workbench; false when there is none.
        public var next: () throws -> Bool

        public init(
            hint: @escaping () throws -> Void, list: @escaping () throws -> Void,
            reset: @escaping () throws -> Void, next: @escaping () throws -> Bool
        ) {
            (self.hint, self.list, self.reset, self.next) = (hint, list, reset, next)
        }
    }

    /// Blocks until a file is saved or a key is typed.
    public var nextEvent: () -> Event
    /// Checks the workbench (and prints what it finds); nil: no verdict (the
    /// build failed, every run crashed).
    public var check: () throws -> [CheckResult]?
    public var say: (String) -> Void
    /// nil: no keyboard (standard input is not a terminal); saves only.
    public var keys: Keys?
    /// Stop after this many checks; nil: until `q`, or `nextEvent` says stop.
    public var maxChecks: Int?

    public init(
        nextEvent: @escaping () -> Event, check: @escaping () throws -> [CheckResult]?,
        say: @escaping (String) -> Void, keys: Keys? = nil, maxChecks: Int? = nil
    ) {
        self.nextEvent = nextEvent
        self.check = check
        self.say = say
        self.keys = keys
        self.maxChecks = maxChecks
    }

    /// Checks now, then after every save and on `c`; returns the last verdict.
    @discardableResult
    public func run() throws -> [CheckResult]? {
        var last: [CheckResult]?
        var solved = false
        var checks = 0
        func check(_ why: String?) throws {
            if let why { say("── check \(checks + 1) · \(why) ──") }
            let results = try self.check()
            checks += 1
            say(VerdictChange.summary(from: last, to: results))
            if results != nil { last = results }
            solved = results?.allPassed == true
        }

        try check(nil)
        var prompt = true
        while maxChecks.map({ checks < $0 }) ?? true {
            if prompt {
                if solved, keys != nil { say("✓ Solved. n starts the next exercise.") }
                say(keys == nil ? Self.savesOnlyLine : Self.keyLine(solved: solved))
            }
            prompt = true
            var event = nextEvent()
            if case .key("r") = event, keys != nil {
                say(Self.resetQuestion)
                let (confirmed, ended) = confirmReset()
                if confirmed {
                    try keys?.reset()
                    try check("starting code back")
                    continue
                }
                say("Nothing changed.")
                // The key that was not the word is dropped (a q meant as a letter quits nothing); a save is checked.
                if case .key = ended { continue }
                event = ended
            }
            switch event {
            case .stop: return last
            case .saved(let files): try check("saved: " + files.joined(separator: ", "))
            case .key(let key):
                guard let keys else { continue }
                switch key.lowercased() {
                case "q": return last
                case "c": try check("c")
                case "h": try keys.hint()
                case "l": try keys.list()
                case "n" where solved:
                    if try keys.next() { try check("the next exercise") }
                case "n": say("n moves on once this exercise is solved: fix what the check marks ✗ first.")
                default: prompt = false
                }
            }
        }
        return last
    }

    /// What confirms a reset, typed after `r` and then Enter: a word, so that
    /// typing ordinary words into the watch never gives it (`every` once ended
    /// in `r` then `y`, and reset the exercise).
    public static let resetWord = "reset"

    public static let resetQuestion =
        "Put this exercise's starting code back? Your code is backed up first. "
        + "Type \(resetWord) and press Enter to do it; any other key leaves it as it is."

    /// After `r`: true once `resetWord` and Enter were typed, else false and what
    /// ended the confirmation (another key, a save, the end).
    private func confirmReset() -> (confirmed: Bool, ended: Event) {
        var typed = ""
        while true {
            let event = nextEvent()
            guard case .key(let key) = event else { return (false, event) }
            if key == "\n" || key == "\r" { return (typed == Self.resetWord, event) }
            typed.append(key)
            guard Self.resetWord.hasPrefix(typed) else { return (false, event) }
        }
    }

    static let savesOnlyLine = "Watching \(WorkbenchLayout.code): save a file to check again (Ctrl-C to stop)."

    /// The last line while waiting, with the keys there are.
    public static func keyLine(solved: Bool) -> String {
        (solved ? "n next · " : "") + "h hint · c check · l list · r reset · q quit · or save a file"
    }
}

/// What changed between two verdicts: the bugs that went from ✗ to ✓, and back.
public enum VerdictChange {
    public static func summary(from before: [CheckResult]?, to after: [CheckResult]?) -> String {
        guard let after else {
            return "No verdict this time (the workbench did not build, or every run crashed): nothing to compare."
        }
        let standing =
            after.fixedCount()
            + (after.contains { $0.isSafeguard && !$0.passed && $0.wasMeasured } ? ", an earlier fix broken" : "")
        guard let before else { return "First check: \(standing)." }
        let was = Dictionary(before.map { ($0.bug, $0.passed) }, uniquingKeysWith: { $1 })
        let nowPassing = after.filter { $0.passed && was[$0.bug] == false }.map(\.title)
        let nowFailing = after.filter { !$0.passed && was[$0.bug] == true }.map(\.title)
        guard !nowPassing.isEmpty || !nowFailing.isEmpty else {
            return "Since the last check: no bug changed. Now: \(standing)."
        }
        var lines = ["Since the last check:"]
        if !nowPassing.isEmpty { lines.append("  ✗ → ✓  " + nowPassing.joined(separator: "; ")) }
        if !nowFailing.isEmpty { lines.append("  ✓ → ✗  " + nowFailing.joined(separator: "; ")) }
        lines.append("Now: \(standing).")
        return lines.joined(separator: "\n")
    }
}

/// The learner's sources, each with its modification date and size: two
/// states differ when a file was saved, added or removed. Only what a build
/// reads counts: what the program writes beside its code (a `debug.log` it
/// appends to on every run) is no save, or each check would set off the next,
/// for ever.
public struct FolderState: Equatable, Sendable {
    public struct File: Equatable, Sendable {
        public let modified: Date
        public let size: Int
    }

    /// By path relative to the folder.
    public let files: [String: File]

    /// The Swift files under `folder`, by path relative to it, and the package's `manifest`, by its name.
    public init(_ folder: URL, manifest: URL? = nil) {
        var files: [String: File] = [:]
        let walker = FileManager.default.enumerator(
            at: folder, includingPropertiesForKeys: [.contentModificationDateKey, .fileSizeKey, .isRegularFileKey])
        let prefix = folder.standardizedFileURL.path + "/"
        while let url = walker?.nextObject() as? URL {
            guard
                let values = try? url.resourceValues(forKeys: [
                    .contentModificationDateKey, .fileSizeKey, .isRegularFileKey,
                ]),
                values.isRegularFile == true, url.pathExtension == "swift"
            else { continue }
            let path = url.standardizedFileURL.path
            files[path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path] = File(
                modified: values.contentModificationDate ?? .distantPast, size: values.fileSize ?? 0)
        }
        if let manifest, let values = try? manifest.resourceValues(forKeys: [.contentModificationDateKey, .fileSizeKey]) {
            files[manifest.lastPathComponent] = File(
                modified: values.contentModificationDate ?? .distantPast, size: values.fileSize ?? 0)
        }
        self.files = files
    }

    /// The files saved, added or removed since `earlier`, by name.
    public func changes(since earlier: FolderState) -> [String] {
        Set(files.keys).union(earlier.files.keys).filter { files[$0] != earlier.files[$0] }.sorted()
    }
}
