import Foundation

/// `lessons watch`: the workbench checked again each time a file in it is
/// saved, and what changed since the check before said in a line or two.
///
/// What waits for a change and what checks are handed in, so the loop can be
/// played in a test without a build, a clock or a sleep.
public struct WorkbenchWatch {
    /// Returns when the next check is due (a file was saved); false: stop watching.
    public var waitForChange: () -> Bool
    /// Checks the workbench (and prints what it finds); nil: no verdict (the
    /// build failed, every run crashed).
    public var check: () throws -> [CheckResult]?
    public var say: (String) -> Void
    /// Stop after this many checks; nil: until `waitForChange` says stop.
    public var maxChecks: Int?

    public init(
        waitForChange: @escaping () -> Bool, check: @escaping () throws -> [CheckResult]?,
        say: @escaping (String) -> Void, maxChecks: Int? = nil
    ) {
        self.waitForChange = waitForChange
        self.check = check
        self.say = say
        self.maxChecks = maxChecks
    }

    /// Checks now, then after every change; returns the last verdict.
    @discardableResult
    public func run() throws -> [CheckResult]? {
        var last: [CheckResult]?
        var checks = 0
        repeat {
            let results = try check()
            checks += 1
            say(VerdictChange.summary(from: last, to: results))
            if results != nil { last = results }
            if let maxChecks, checks >= maxChecks { break }
            say("Watching \(WorkbenchLayout.code): save a file to check again (Ctrl-C to stop).")
        } while waitForChange()
        return last
    }
}

/// What changed between two verdicts: the bugs that went from ✗ to ✓, and back.
public enum VerdictChange {
    public static func summary(from before: [CheckResult]?, to after: [CheckResult]?) -> String {
        guard let after else {
            return "No verdict this time (the workbench did not build, or every run crashed): nothing to compare."
        }
        let fixed = after.filter { !$0.isSafeguard && $0.passed }.count
        let total = after.filter { !$0.isSafeguard }.count
        let standing =
            "\(fixed) of \(total) bugs fixed"
            + (after.contains { $0.isSafeguard && !$0.passed } ? ", an earlier fix broken" : "")
        guard let before else { return "First check: \(standing)." }
        let was = Dictionary(before.map { ($0.bug, $0.passed) }, uniquingKeysWith: { $1 })
        let nowPassing = after.filter { $0.passed && was[$0.bug] == false }.map(\.bug)
        let nowFailing = after.filter { !$0.passed && was[$0.bug] == true }.map(\.bug)
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

/// The files under a folder, each with its modification date and size: two
/// states differ when a file was saved, added or removed.
public struct FolderState: Equatable, Sendable {
    public struct File: Equatable, Sendable {
        public let modified: Date
        public let size: Int
    }

    /// By path relative to the folder.
    public let files: [String: File]

    public init(_ folder: URL) {
        var files: [String: File] = [:]
        let walker = FileManager.default.enumerator(
            at: folder, includingPropertiesForKeys: [.contentModificationDateKey, .fileSizeKey, .isRegularFileKey])
        let prefix = folder.standardizedFileURL.path + "/"
        while let url = walker?.nextObject() as? URL {
            guard
                let values = try? url.resourceValues(forKeys: [
                    .contentModificationDateKey, .fileSizeKey, .isRegularFileKey,
                ]),
                values.isRegularFile == true
            else { continue }
            let path = url.standardizedFileURL.path
            files[path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path] = File(
                modified: values.contentModificationDate ?? .distantPast, size: values.fileSize ?? 0)
        }
        self.files = files
    }

    /// The files saved, added or removed since `earlier`, by name.
    public func changes(since earlier: FolderState) -> [String] {
        Set(files.keys).union(earlier.files.keys).filter { files[$0] != earlier.files[$0] }.sorted()
    }
}
