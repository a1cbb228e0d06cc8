import Foundation
import HostOS

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
            guard let pid = pid_t(entry), let stat = ProcessStat.of(pid) else { continue }
            table.children[stat.parent, default: []].append(pid)
            if !stat.hasEnded { table.running.insert(pid) }
        }
        return table
    }

    /// `root` and everything it started, at any depth, that has not ended: the same as `now().running([root])`,
    /// read from the kernel's list of each process's children in the tree rather than from every process on the
    /// machine (a watchdog looks four times a second, and the test suite runs dozens of children at once).
    static func running(under root: pid_t) -> [pid_t] {
        tree(under: root).filter(isRunning)
    }

    /// The processes `parent` has as children now (adopted orphans, and ended ones not yet collected, too): the
    /// kernel's list of them, or where it keeps none, read from every process.
    static func children(of parent: pid_t) -> [pid_t] {
        ProcessStat.children(of: parent) ?? now().children(of: parent)
    }

    /// `root` and everything it started, at any depth, still there: running, or ended and not yet collected by its
    /// parent. An ended child's processor time is its own until its parent collects it, and then the parent's.
    static func tree(under root: pid_t) -> [pid_t] {
        var found: [pid_t] = []
        var seen: Set<pid_t> = []
        var next = [root]
        while let pid = next.popLast() {
            guard seen.insert(pid).inserted else { continue }
            guard let children = ProcessStat.children(of: pid) else { return now().tree([root]) }
            found.append(pid)
            next += children
        }
        return found
    }

    /// Whether `pid` is there and has not ended.
    static func isRunning(_ pid: pid_t) -> Bool {
        ProcessStat.of(pid).map { !$0.hasEnded } ?? false
    }

    /// Whether `pid` is stopped (SIGTSTP, SIGSTOP), has ended, or is not there.
    static func isStoppedOrGone(_ pid: pid_t) -> Bool {
        ProcessStat.of(pid).map { $0.hasEnded || $0.isStopped } ?? true
    }

    /// The processes `parent` started that are still its children.
    func children(of parent: pid_t) -> [pid_t] {
        children[parent] ?? []
    }

    /// `roots` and everything they started, at any depth, that has not ended.
    func running(_ roots: [pid_t]) -> [pid_t] {
        tree(roots).filter(running.contains)
    }

    /// `roots` and everything they started, at any depth, ended or not.
    func tree(_ roots: [pid_t]) -> [pid_t] {
        var found: [pid_t] = []
        var seen: Set<pid_t> = []
        var next = roots
        while let pid = next.popLast() {
            guard seen.insert(pid).inserted else { continue }
            found.append(pid)
            next += children(of: pid)
        }
        return found
    }
}
