import Foundation
import HarnessSync
import HostOS

/// A time limit for a child, which can be moved while it runs (a child that
/// says it starts something long gets the time that thing needs).
///
/// It counts what the child does, not how busy the machine is, by the story
/// clock's hang guard's rule (`HangGuard`), for the child's whole process tree:
/// - the processor time the tree runs (an endless loop: it runs for ever), and
/// - the wall time in which no thread of the tree could run and next to none
///   ran (a deadlock, a wait for what never comes, a `sleep`).
/// A tree whose threads wait for a processor adds to neither: at a load of 40
/// a minute of wall time had stopped terminal tests that were only starved.
public final class Watchdog: @unchecked Sendable {
    private let lock = Locked(.seen)
    private var limit: Duration
    private let meter: Meter
    /// What has counted against the limit since it was set.
    private var counted = Duration.zero
    /// The last look: when (awake time), and the tree's processor time then; the first look at a child starts
    /// from its start (no processor time) and the watchdog's making.
    private var lastLook: (awake: ContinuousClock.Instant, processor: Duration)
    private var watched: pid_t?
    /// Ask the child for a backtrace before stopping it (a Swift program).
    public let asksForBacktrace: Bool

    public init(limit: Duration, asksForBacktrace: Bool = false, meter: Meter = .host) {
        self.limit = limit
        self.meter = meter
        self.asksForBacktrace = asksForBacktrace
        lastLook = (meter.awakeTime(), .zero)
    }

    /// What the watchdog reads of a process tree (given its root), and the wall clock less the time this program
    /// was stopped (Ctrl-Z is no hang: `JobControl`). A test hands it a double.
    public struct Meter: Sendable {
        /// The processor time the tree has run so far, its ended children's included.
        public var processorTime: @Sendable (pid_t) -> Duration
        public var awakeTime: @Sendable () -> ContinuousClock.Instant
        /// Whether a thread of the tree is running, or waiting for a processor or the disk.
        public var aThreadCanRun: @Sendable (pid_t) -> Bool

        public init(
            processorTime: @escaping @Sendable (pid_t) -> Duration,
            awakeTime: @escaping @Sendable () -> ContinuousClock.Instant,
            aThreadCanRun: @escaping @Sendable (pid_t) -> Bool
        ) {
            self.processorTime = processorTime
            self.awakeTime = awakeTime
            self.aThreadCanRun = aThreadCanRun
        }

        public static let host = Meter(
            processorTime: { root in
                // Ended children too: between its end and its parent's `wait`, a child's time is only its own.
                ProcessTable.tree(under: root).reduce(.zero) { $0 + (ProcessStat.of($1)?.processorTime ?? .zero) }
            },
            awakeTime: { JobControl.now },
            aThreadCanRun: { root in
                ProcessTable.running(under: root).contains { ProcessStat.threadsThatCanRun(in: $0, upTo: 1) > 0 }
            })
    }

    /// The shortest stretch of wall time judged at one look, as the hang guard's: a shorter one says nothing
    /// about who could run.
    static let shortestLook = HangGuard.shortestLook

    /// A new limit, counted from now.
    public func restart(limit: Duration) {
        lock.withLock {
            self.limit = limit
            counted = .zero
        }
    }

    /// What may still count before the child is stopped.
    public var remaining: Duration { lock.withLock { limit - counted } }

    /// Measures the tree under `root` since the last look (`RunningChild.wait` looks at every turn of its wait):
    /// its processor time counts; a stretch in which next to nothing ran (a tenth of one processor) and no thread
    /// of it can run now counts whole.
    public func look(at root: pid_t) {
        let awake = meter.awakeTime()
        let processor = meter.processorTime(root)
        let last = lock.withLock {
            // The first look at a child counts from its start.
            if watched != root { (watched, lastLook.processor) = (root, .zero) }
            return lastLook
        }
        let stretch = awake - last.awake
        guard stretch >= Self.shortestLook else { return }
        let ran = max(processor - last.processor, .zero)
        let blocked = ran < stretch / 10 && !meter.aThreadCanRun(root)
        lock.withLock {
            lastLook = (awake, processor)
            counted += blocked ? stretch : ran
        }
    }
}
