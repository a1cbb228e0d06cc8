import Foundation
import Testing

@testable import LessonKit

#if canImport(Glibc)
    import Glibc
#endif

/// A child's watchdog counts what the child's process tree does, by the hang
/// guard's rule: its processor time, and the wall time in which none of its
/// threads could run. A learner's endless loop and a deadlock are stopped at
/// the same limit as before; a tree starved by the machine's load is not
/// stopped at all (the old rule, wall time, stopped terminal tests at load 40).
/// Played on a double of the clocks and `/proc`, looked at as
/// `RunningChild.wait` looks (every 250 ms), so "loaded" is exact and costs no
/// wall time.
@Suite struct WatchdogTests {
    static let limit = Duration.seconds(30)
    static let child: pid_t = 4242

    /// Looks at the tree every 250 ms of wall time, in each of which it runs `ran` and its threads can run or
    /// not, until the watchdog's time is up or `longest` has passed: the wall time that took, nil if never.
    static func stopped(running ran: Duration, aThreadCanRun: Bool, longest: Duration = .seconds(600)) -> Duration? {
        let tree = MachineDouble()
        let watchdog = Watchdog(limit: limit, meter: tree.treeMeter)
        var wall = Duration.zero
        while wall < longest {
            tree.pass(wall: .milliseconds(250), ran: ran, anotherThreadCanRun: aThreadCanRun)
            wall += .milliseconds(250)
            watchdog.look(at: child)
            if watchdog.remaining <= .zero { return wall }
        }
        return nil
    }

    /// An endless loop: a processor's worth of time for every second, stopped once it has run the limit.
    @Test func anEndlessLoopIsStoppedAfterItsProcessorTime() {
        #expect(Self.stopped(running: .milliseconds(250), aThreadCanRun: true) == Self.limit)
    }

    /// Two threads that spin: the tree runs two processors' worth, and its limit is reached in half the wall time.
    @Test func processorTimeOnEveryCoreCounts() {
        #expect(Self.stopped(running: .milliseconds(500), aThreadCanRun: true) == Self.limit / 2)
    }

    /// A deadlock, or `sleep 300`: nothing runs and nothing could, and the wall time counts.
    @Test func aTreeThatWaitsForWhatNeverComesIsStoppedAfterItsWallTime() {
        #expect(Self.stopped(running: .milliseconds(2), aThreadCanRun: false) == Self.limit)
    }

    /// Ten minutes of a load that gives the tree a hundredth of a processor, its threads waiting for one: no
    /// hang (the old rule stopped it at the limit's 30 s of wall time); it has run 6 s of its 30.
    @Test func aTreeStarvedByLoadIsNotStopped() {
        #expect(Self.stopped(running: .microseconds(2_500), aThreadCanRun: true) == nil)
    }

    /// A restart counts the new limit from then; the time before it is forgotten.
    @Test func aRestartCountsFromThen() {
        let tree = MachineDouble()
        let watchdog = Watchdog(limit: .seconds(10), meter: tree.treeMeter)
        for _ in 0..<32 {
            tree.pass(wall: .milliseconds(250), ran: .milliseconds(250), anotherThreadCanRun: true)
            watchdog.look(at: Self.child)
        }
        #expect(watchdog.remaining == .seconds(2))
        watchdog.restart(limit: .seconds(60))
        tree.pass(wall: .milliseconds(250), ran: .milliseconds(250), anotherThreadCanRun: true)
        watchdog.look(at: Self.child)
        #expect(watchdog.remaining == .seconds(60) - .milliseconds(250))
    }

    /// The first look counts the child's processor time from its start: a child that ran before the first look
    /// has run it under the watchdog.
    @Test func theFirstLookCountsFromTheChildsStart() {
        let tree = MachineDouble()
        let watchdog = Watchdog(limit: .seconds(10), meter: tree.treeMeter)
        tree.pass(wall: .seconds(1), ran: .seconds(1), anotherThreadCanRun: true)
        watchdog.look(at: Self.child)
        #expect(watchdog.remaining == .seconds(9))
    }

    /// The host's meter on a real tree, a shell with a child that spins and one that sleeps: the spinner's time is
    /// the tree's and it can run; once it is killed, its time stays in the tree's, and nothing in the tree can run.
    /// The shell is stopped first, so the ended spinner waits uncollected: its time is then its own, not yet the
    /// shell's (a look in that moment found it in neither, once, under load). The spinner starts on the test's word and
    /// the looks run on a thread of their own: while the test waited for a turn of Swift's shared threads, with
    /// every suite running, a spinner started at once spun a processor for up to 36 s.
    @Test func theHostMeterReadsATreesProcessorTimeAndWhetherItCanRun() async throws {
        let go = FileManager.default.temporaryDirectory.appendingPathComponent("watchdog-go-\(UUID())")
        defer { try? FileManager.default.removeItem(at: go) }
        let script = "sleep 300 & (while [ ! -e '\(go.path)' ]; do sleep 0.05; done; while :; do :; done) & "
            + #"echo "$!" > "$0"; wait"#
        try await Announcements.shell("watchdog-tree", script, announcing: "the spinner") { shell, announced in
            let spinner = announced[0]
            let host = Watchdog.Meter.host
            let seen = await Rig.onThread {
                // Counted from the word: the spinner's wait for it ran the tree's `sleep`s.
                let waited = host.processorTime(shell.pid)
                _ = FileManager.default.createFile(atPath: go.path, contents: nil)
                let ran = Self.within { host.processorTime(shell.pid) >= waited + .milliseconds(50) }
                let canRun = host.aThreadCanRun(shell.pid)
                kill(shell.pid, SIGSTOP)
                let before = host.processorTime(shell.pid)
                kill(spinner, SIGKILL)
                let stopped = Self.within { !host.aThreadCanRun(shell.pid) }
                return (ran: ran, canRun: canRun, stopped: stopped, kept: host.processorTime(shell.pid) >= before)
            }
            #expect(seen.ran, "the spinner never ran 50 ms")
            #expect(seen.canRun, "the spinner runs or waits for a processor")
            #expect(seen.stopped, "a thread of the shell and its sleep can run")
            #expect(seen.kept, "the spinner's time left the tree with it")
            shell.send(SIGKILL)
            _ = await shell.finished()
        }
    }

    /// The kernel's lists of each process's children find the tree the whole process table finds: a shell, its
    /// sleep, and a subshell with a sleep of its own.
    @Test func theChildrenListsFindTheTreeTheWholeTableFinds() async throws {
        let script = #"sleep 300 & (sleep 300 & echo "$!" > "$0"; wait) & wait"#
        try await Announcements.shell("process-tree", script, announcing: "the inner sleep") { shell, announced in
            let table = ProcessTable.now().running([shell.pid])
            #expect(table.count == 4 && table.contains(announced[0]), "\(table)")
            #expect(Set(ProcessTable.running(under: shell.pid)) == Set(table))
            shell.send(SIGKILL)
            _ = await shell.finished()
        }
    }

    /// Whether `condition` held within a minute of wall time, looking every 10 ms (a hang guard: under load
    /// the spinner and the shell wait their turns).
    static func within(_ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            usleep(10_000)
        }
        return true
    }
}

extension MachineDouble {
    /// The hang guard's double read as a child's tree (`HangGuardTests`): what it says of the process, of the tree.
    var treeMeter: Watchdog.Meter {
        let meter = self.meter
        return Watchdog.Meter(
            processorTime: { _ in meter.processorTime() }, awakeTime: meter.awakeTime,
            aThreadCanRun: { _ in meter.anotherThreadCanRun() })
    }
}
