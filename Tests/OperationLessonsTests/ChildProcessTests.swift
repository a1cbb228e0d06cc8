import Foundation
import LessonKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Whether a process is still there: not in /proc, or a zombie (it has ended,
/// and waits for its parent to collect its status), counts as gone.
func isAlive(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return false }
    return stat[stat.index(close, offsetBy: 2)] != "Z"
}

/// The processes whose parent is `pid`, with their command lines.
func children(of pid: pid_t) -> [(pid: pid_t, command: String)] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry in
        guard let child = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        guard fields.count > 1, pid_t(fields[1]) == pid else { return nil }
        let command = (try? String(contentsOfFile: "/proc/\(entry)/cmdline", encoding: .utf8)) ?? ""
        return (child, command.replacingOccurrences(of: "\u{0}", with: " "))
    }
}

/// The one child-process runner: a child that is stopped ends with everything it started.
@Suite struct ChildProcessTests {
    /// Stopping a child ends what it started too: its whole process group.
    @Test func stoppingAChildEndsItsChildren() async throws {
        let child = try ChildProcess(command: ["sh", "-c", "sleep 300 & sleep 300 & wait"]).launch()
        var grandchildren: [pid_t] = []
        let started = await eventually {
            grandchildren = children(of: child.pid).map(\.pid)
            return grandchildren.count == 2
        }
        try #require(started)
        let finished = await child.finished(watchdog: Watchdog(limit: .milliseconds(200)))
        #expect(finished.stoppedAfter != nil)
        #expect(finished.signal == SIGTERM)
        #expect(grandchildren.allSatisfy { !isAlive($0) })
    }
}
