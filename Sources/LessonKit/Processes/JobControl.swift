import Foundation
import HarnessSync

#if canImport(Glibc)
    import Glibc
#endif

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

    /// From now on SIGTSTP stops this process and what it started, and SIGCONT continues them. Called once at
    /// start-up (again, it does nothing).
    static func passOnStops() {
        let first = lock.withLock {
            defer { state.installed = true }
            return !state.installed
        }
        guard first else { return }
        let queue = DispatchQueue(label: "job control")
        // Ignored first, so only the sources see them (as `ChildProcess.endChildrenOnSignals` does).
        signal(SIGTSTP, SIG_IGN)
        let stop = DispatchSource.makeSignalSource(signal: SIGTSTP, queue: queue)
        stop.setEventHandler { stopWithChildren() }
        // Continued by another way than after Ctrl-Z (`kill -STOP`, then `kill -CONT`): the children go on too.
        let continued = DispatchSource.makeSignalSource(signal: SIGCONT, queue: queue)
        continued.setEventHandler { heardContinue() }
        for source in [stop, continued] { source.resume() }
        sources = [stop, continued]
    }

    private static func stopWithChildren() {
        let hooks = lock.withLock { state.hooks }
        for (before, _) in hooks { before() }
        let (own, others) = LiveChildren.stopTargets()
        for pid in own { kill(pid, SIGTSTP) }
        for pid in others { kill(pid, SIGSTOP) }
        // The job stops as a whole: the shell's prompt comes once nothing of it runs.
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline, !(own + others).allSatisfy(ProcessTable.isStoppedOrGone) {
            Thread.sleep(forTimeInterval: 0.01)
        }
        // A child that takes no SIGTSTP (one whose group is orphaned ignores it) is stopped all the same.
        for pid in own where !ProcessTable.isStoppedOrGone(pid) { kill(pid, SIGSTOP) }
        // SIGSTOP cannot be caught: the process stops here, and goes on from here when continued. The SIGCONT that
        // continues it reaches the source below too, after this: that one is this stop's, already answered here.
        lock.withLock { state.ownStopsToAnswer += 1 }
        kill(getpid(), SIGSTOP)
        continueWithChildren()
    }

    /// SIGCONT: the children go on too, unless it ended a stop of the process's own, whose continue is done.
    private static func heardContinue() {
        let ownStop = lock.withLock {
            guard state.ownStopsToAnswer > 0 else { return false }
            state.ownStopsToAnswer -= 1
            return true
        }
        if !ownStop { continueWithChildren() }
    }

    private static func continueWithChildren() {
        for pid in LiveChildren.continueTargets() { kill(pid, SIGCONT) }
        let hooks = lock.withLock { state.hooks }
        for (_, after) in hooks { after() }
    }

    private struct State {
        var installed = false
        /// Stops of its own whose SIGCONT the signal source has still to hear (and leave alone).
        var ownStopsToAnswer = 0
        var hooks: [(before: @Sendable () -> Void, after: @Sendable () -> Void)] = []
    }

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
