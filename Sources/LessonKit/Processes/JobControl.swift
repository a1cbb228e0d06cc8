import Foundation
import HarnessSync
import HostOS

/// Ctrl-Z and `fg` for a program with children. The shell stops the
/// terminal's foreground process group, but `Process` puts each child in a
/// group of its own: stopped `lessons watch`'s build and workbench ran on,
/// and the watchdogs counted the minutes it was stopped, so `fg` reported a
/// hang that was none.
///
/// Once `passOnStops()` runs, SIGTSTP stops this process with everything it
/// started: its `ChildProcess` children get SIGTSTP (so that those that are
/// this package's programs do the same below them, and note their own stop),
/// whatever else runs below it SIGSTOP; continued, it continues them all.
/// `now` is a clock that stands still while this process is stopped: the
/// watchdogs and the story clock's hang guard count by it.
public enum JobControl {
    /// The wall clock, less the time this process spent stopped (by Ctrl-Z, or SIGSTOP from anyone): a thread
    /// ticks it, and a gap longer than `longestTick` between two ticks counts as `longestTick` only. Whichever
    /// thread reads it first after a stop, the stop is no time run.
    public static var now: ContinuousClock.Instant {
        AwakeTime.shared.now
    }

    /// What the terminal needs around a stop (`RawTerminal`: its modes back for the shell, raw again after `fg`).
    static func aroundStops(before: @escaping @Sendable () -> Void, after: @escaping @Sendable () -> Void) {
        lock.withLock { state.hooks.append((before, after)) }
        passOnStops()
    }

    /// From now on no stop or continue touches the terminal: the program is on its way out and puts it back
    /// itself. Once this returns, no hook runs any more (they run under the same lock): a continue heard late
    /// had made the terminal raw again after the way out had put it back.
    static func leaveTheTerminalAlone() {
        lock.withLock { state.hooks = [] }
    }

    /// From now on SIGTSTP stops this process and what it started, and SIGCONT continues them. Called once at
    /// start-up (again, it does nothing).
    static func passOnStops() {
        let first = lock.withLock {
            defer { state.installed = true }
            return !state.installed
        }
        guard first else { return }
        // Ignored first, so only the source sees it.
        HostSignals.ignore(HostSignals.terminalStop)
        let stop = DispatchSource.makeSignalSource(signal: HostSignals.terminalStop, queue: signals)
        stop.setEventHandler { heardStop() }
        let continued = DispatchSource.makeSignalSource(signal: HostSignals.continued, queue: signals)
        continued.setEventHandler { continueWithChildren() }
        for source in [stop, continued] { source.resume() }
        sources = [stop, continued]
    }

    /// SIGTSTP: a stop, unless one is under way. A second Ctrl-Z (or `kill -TSTP`) before the stop's continue
    /// belongs to that stop, as the kernel discards a stop signal still pending when SIGCONT comes: heard as a
    /// stop of its own, it had stopped the command again right after `fg`, with everything it started.
    private static func heardStop() {
        let first = lock.withLock {
            defer { state.stopping = true }
            return !state.stopping
        }
        // The stop waits for the children; meanwhile this queue hears what comes next, in the order it comes.
        if first { stopper.async { stopWithChildren() } }
    }

    private static func stopWithChildren() {
        runHooks { $0.before }
        let (own, others) = LiveChildren.stopTargets()
        for pid in own { HostSignals.send(HostSignals.terminalStop, to: pid) }
        for pid in others { HostSignals.send(HostSignals.stop, to: pid) }
        // The job stops as a whole: the shell's prompt comes once nothing of it runs.
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline, !(own + others).allSatisfy(ProcessTable.isStoppedOrGone) {
            Thread.sleep(forTimeInterval: 0.01)
        }
        // A child that takes no SIGTSTP (one whose group is orphaned ignores it) is stopped all the same.
        for pid in own where !ProcessTable.isStoppedOrGone(pid) { HostSignals.send(HostSignals.stop, to: pid) }
        // SIGSTOP cannot be caught: the process stops here. The SIGCONT that continues it reaches `signals`
        // after any SIGTSTP heard before the stop, which `heardStop` then leaves to this stop.
        HostSignals.send(HostSignals.stop, to: HostProcess.id)
    }

    /// SIGCONT, after a stop of this process's own or of anyone's (`kill -STOP`, a terminal's SIGTTOU): the
    /// children go on too, and the terminal is made raw again.
    private static func continueWithChildren() {
        lock.withLock { state.stopping = false }
        for pid in LiveChildren.continueTargets() { HostSignals.send(HostSignals.continued, to: pid) }
        runHooks { $0.after }
    }

    private static func runHooks(_ which: (Hook) -> @Sendable () -> Void) {
        lock.withLock {
            for hook in state.hooks { which(hook)() }
        }
    }

    private typealias Hook = (before: @Sendable () -> Void, after: @Sendable () -> Void)

    private struct State {
        var installed = false
        /// From a SIGTSTP heard to the next SIGCONT.
        var stopping = false
        var hooks: [Hook] = []
    }

    /// Where SIGTSTP and SIGCONT are heard, one at a time, in the order they came.
    private static let signals = DispatchQueue(label: "job control")
    /// Where a stop waits for the children to stop, then stops this process.
    private static let stopper = DispatchQueue(label: "job control: stopping")

    private static let lock = Locked(.seen)
    nonisolated(unsafe) private static var state = State()
    /// Kept for the life of the process; written once, at start-up.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
}

/// The time this process has run, not stopped: ticked by a thread of its own every `tick`; a gap between two
/// ticks longer than `longestTick` is a stop (or a machine too loaded to run the thread), counted as that long.
final class AwakeTime: @unchecked Sendable {
    static let shared = AwakeTime()
    static let tick = Duration.milliseconds(100)
    static let longestTick = Duration.seconds(1)

    private let lock = Locked(.seen)
    private var awake: ContinuousClock.Instant
    private var lastTick: ContinuousClock.Instant

    private init() {
        (awake, lastTick) = (.now, .now)
        let ticker = Thread { [self] in
            while true {
                Thread.sleep(forTimeInterval: Double(Self.tick.components.attoseconds) / 1e18)
                lock.withLock {
                    let wall = ContinuousClock.now
                    awake += min(wall - lastTick, Self.longestTick)
                    lastTick = wall
                }
            }
        }
        ticker.name = "awake time"
        ticker.start()
    }

    var now: ContinuousClock.Instant {
        lock.withLock { awake + min(ContinuousClock.now - lastTick, Self.longestTick) }
    }
}
