import Foundation
import Synchronization
import Testing

@testable import LessonKit

#if canImport(Glibc)
    import Glibc
#endif

/// "After Ctrl-C, SIGHUP or a closed terminal at any phase of check, watch,
/// play and run: no process started by the command survives, the terminal is
/// as it was" (issue 35), tried 20 times each in CI's long series. The command leads the session
/// of a pseudo-terminal, as a shell in a terminal window does; Ctrl-C is typed
/// on it, or its controlling side is closed, as a window closes (the kernel
/// then hangs the session up: SIGHUP), or SIGHUP is sent to the command
/// itself, as a parent that goes or an ssh drop sends it. `check` and `watch`
/// run a stand-in `swift` (`SwiftStandIn`) whose build, or the workbench it
/// leaves, starts a process in a session of its own and runs for ever; `play`
/// and `run` play step 5, ended as soon as they run or once its screen is up. (They have no pager and
/// no prompt: they `exec` the step, whose live screen reads keys.) A try is
/// cheap (no compiler, no grace: the process left behind takes the signal), so
/// each case is tried 20 times in CI's long series (`SameFiguresSeries.isLong`,
/// which `.ci/run` sets), and 5 times in a plain `swift test`: the 480 tries
/// cost about 30 s of processor time, a sixth of the whole suite's.
@Suite(.serialized) struct ClosedTerminalTests {
    static let tries = SameFiguresSeries.isLong ? 20 : 5

    enum Ending: String, CaseIterable, CustomTestStringConvertible {
        case controlC = "Ctrl-C typed"
        case closed = "the terminal closed"
        case hangUp = "SIGHUP sent to the command"
        var testDescription: String { rawValue }

        /// The key that ends the command once `ready` returns.
        func key(once ready: @escaping @Sendable (PseudoTerminal.Running) async throws -> Void) -> PseudoTerminal.Key {
            switch self {
            case .controlC: PseudoTerminal.Key(after: "", send: "\u{03}", once: ready)
            case .closed: .closeTerminal(once: ready)
            case .hangUp:
                PseudoTerminal.Key(after: "") { session in
                    try await ready(session)
                    kill(try await ClosedTerminalTests.command(of: session), SIGHUP)
                }
            }
        }

        /// Whether the terminal is left to look at afterwards (a closed one is gone).
        var leavesTheTerminal: Bool { self != .closed }
    }

    /// When the ending comes: as soon as the command runs (before a step's first frame), or while the workbench
    /// builds, or once the workbench or the step plays.
    enum Phase: String, Sendable {
        case starting, building, playing
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var command: String
        var phase: Phase
        var testDescription: String { "\(command), \(phase.rawValue)" }
        var playsAStep: Bool { command == "play" || command == "run" }
    }

    static let cases =
        [
            Case(command: "check", phase: .building), Case(command: "check", phase: .playing),
            Case(command: "watch", phase: .building), Case(command: "watch", phase: .playing),
            Case(command: "play", phase: .starting), Case(command: "play", phase: .playing),
            Case(command: "run", phase: .starting), Case(command: "run", phase: .playing),
        ]

    @Test(.onATerminal, arguments: Ending.allCases, cases)
    func nothingTheCommandStartedSurvivesItsTerminal(ending: Ending, case played: Case) async throws {
        var survivors: [String] = []
        for attempt in 1...Self.tries {
            let left =
                played.playsAStep
                ? try await Self.step(played, ending: ending)
                : try await Self.workbench(played, ending: ending)
            if !left.isEmpty { survivors.append("try \(attempt): \(left)") }
        }
        #expect(survivors.isEmpty, "\(survivors.count) of \(Self.tries) tries left: \(survivors)")
    }

    /// The command `setsid` started in its session (`session`), once it runs: once `setsid` has made the terminal
    /// its controlling one and put the command in its own place (`exec`). Waits as long as `setsid` is there:
    /// the run's watchdog ends a stuck one.
    static func command(of session: PseudoTerminal.Running) async throws -> pid_t {
        let setsid = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(session.pid)/exe")
        let found = await Rig.onThread { () -> pid_t? in
            while isAlive(session.pid) {
                for pid in ProcessTable.now().children(of: session.pid)
                where (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) != setsid {
                    return pid
                }
                usleep(2_000)
            }
            return nil
        }
        guard let found else { throw TestFailure("setsid ended before the command ran") }
        return found
    }

    /// `check` or `watch` ended while the stand-in builds or plays; what was left: processes, scratch folders,
    /// the terminal's modes (unless it was closed).
    static func workbench(_ played: Case, ending: Ending) async throws -> [String] {
        let root = try SwiftStandIn.sandbox()
        let folder = try ScratchFolder.make("closed-\(played.command)")
        let temporary = try ScratchFolder.make("closed-tmp")
        defer {
            try? FileManager.default.removeItem(at: root)
            for made in [folder, temporary] { ScratchFolder.remove(made) }
        }
        let announcements = try Announcements(in: folder)
        defer { announcements.stop() }
        let forEver = #"""
            setsid sh -c "echo \$\$ > '\#(announcements.path)'; exec sleep 300" &
            echo $$ > '\#(announcements.path)'
            exec sleep 300
            """#
        let path =
            played.phase == .building
            ? try SwiftStandIn.path(in: folder, build: forEver)
            : try SwiftStandIn.path(in: folder, build: "", workbench: forEver)
        let ready: @Sendable (PseudoTerminal.Running) async throws -> Void = { command in
            try await waitUntilStarted(announcements, "the \(played.phase) to start", by: command.pid)
        }
        let run = try await PseudoTerminal.run(
            "lessons", arguments: [played.command, "--root", root.path],
            keys: [ending.key(once: ready)],
            environment: ["PATH": path, "TMPDIR": temporary.path], size: (24, 80), leadsSession: true)
        let started = try await announcements.lines().compactMap { pid_t($0) }
        defer { for pid in started where isAlive(pid) { kill(pid, SIGKILL) } }
        var left = started.filter(isAlive).map { "process \($0)" }
        if started.count < 2 { left.append("only \(started.count) of 2 processes said they started") }
        left += try FileManager.default.contentsOfDirectory(atPath: temporary.path).map { "scratch folder \($0)" }
        if ending.leavesTheTerminal && !run.restored { left.append("the terminal's modes changed") }
        return left
    }

    /// Returns once the stand-in's two processes said they started, judged as `PseudoTerminal.whileItRuns` judges
    /// a wait: a command's start is as slow as the machine is busy.
    static func waitUntilStarted(_ announcements: Announcements, _ what: String, by command: pid_t) async throws {
        try await PseudoTerminal.whileItRuns(command) { _ = try await announcements.line(2, what) }
    }

    /// `play 5` or `run 5` (the step in `lessons`'s place) ended as soon as `lessons` runs, or once the step's
    /// screen is up: what was left. A Ctrl-C in `lessons`'s first milliseconds was lost, and the step played on
    /// (`EarlySignalTests`).
    static func step(_ played: Case, ending: Ending) async throws -> [String] {
        let caches = try ScratchFolder.make("closed-caches")
        defer { ScratchFolder.remove(caches) }
        let pids = Mutex<[pid_t]>([])
        let ended = ending.key(once: { session in
            // The step, in the place of the lessons that `setsid` started, and what it started; as soon as it
            // runs, the command as `command(of:)` found it, which a table read a moment later could miss.
            let found = played.phase == .starting ? [try await command(of: session)] : []
            let table = ProcessTable.now()
            pids.withLock { $0 = Array(Set(found + table.running(table.children(of: session.pid)))) }
        })
        let screenUp: [PseudoTerminal.Key] = played.phase == .starting ? [] : [.type("", after: "Lesson 05")]
        let run = try await PseudoTerminal.run(
            "lessons", arguments: [played.command, "5", "--speed", "0.5"],
            keys: screenUp + [ended],
            environment: ["XDG_CACHE_HOME": caches.path], size: (24, 80), leadsSession: true)
        let started = pids.withLock { $0 }
        defer { for pid in started where isAlive(pid) { kill(pid, SIGKILL) } }
        var left = started.filter(isAlive).map { "process \($0)" }
        if started.isEmpty { left.append("the command was not found running") }
        if ending.leavesTheTerminal && !run.restored { left.append("the terminal's modes changed") }
        return left
    }
}
