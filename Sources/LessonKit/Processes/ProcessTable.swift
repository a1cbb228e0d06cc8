import Foundation

/// The machine's processes as `/proc` tells them, read at one moment: who
/// started whom, whatever process group or session each put itself in.
///
/// A process group is not enough to find what a child started: `swiftc`
/// makes a group of its own under `swift-build`, and a learner's code can
/// start processes anywhere. Parenthood is what they cannot leave.
struct ProcessTable {
    private var children: [pid_t: [pid_t]] = [:]
    private var running: Set<pid_t> = []

    /// Reads every `/proc/PID/stat`; a process that ends meanwhile is left out.
    static func now() -> ProcessTable {
        var table = ProcessTable()
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let status = status(of: pid) else { continue }
            table.children[status.parent, default: []].append(pid)
            if !status.ended { table.running.insert(pid) }
        }
        return table
    }

    /// Whether `pid` is there and has not ended.
    static func isRunning(_ pid: pid_t) -> Bool {
        status(of: pid).map { !$0.ended } ?? false
    }

    /// Whether `pid` is stopped (SIGTSTP, SIGSTOP), has ended, or is not there.
    static func isStoppedOrGone(_ pid: pid_t) -> Bool {
        status(of: pid).map { $0.ended || $0.stopped } ?? true
    }

    /// A process's parent, and whether it has ended (a zombie: it only waits
    /// for its parent to collect its status).
    private static func status(of pid: pid_t) -> (parent: pid_t, ended: Bool, stopped: Bool)? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // "PID (name) STATE PPID …": the name may hold anything, parentheses too.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 1, let parent = pid_t(fields[1]) else { return nil }
        return (parent, fields[0] == "Z", fields[0] == "T" || fields[0] == "t")
    }

    /// The processes `parent` started that are still its children.
    func children(of parent: pid_t) -> [pid_t] {
        children[parent] ?? []
    }

    /// `roots` and everything they started, at any depth, that has not ended.
    func running(_ roots: [pid_t]) -> [pid_t] {
        var found: [pid_t] = []
        var seen: Set<pid_t> = []
        var next = roots
        while let pid = next.popLast() {
            guard seen.insert(pid).inserted else { continue }
            if running.contains(pid) { found.append(pid) }
            next += children(of: pid)
        }
        return found
    }
}
