import Foundation
import HarnessSync
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit

/// The world step 8's software update runs in, as the harness makes it and
/// reads it: the network the package comes from, a log whose lines are noted
/// with when and on which lane they were written, the clock its unzip sleeps
/// on, and how long the unzip takes, drawn from the seed (with the
/// download's time) so that a seed replays the same race between download and
/// unzip. All of it on the trace's story clock.
///
/// What the update did is read from its log, as the tutorial's reader reads
/// its `NSLog`s: a line "unzip: 13 files" is the unzip's work done; "unzip
/// finished" is its completion block.
public struct UpdateWorld: Sendable {
    /// The update's steps, in the order the tutorial chains them.
    public static let steps = ["download", "unzip", "install"]

    public let network: SlowNetwork
    public let lines: CallRecorder<String>
    /// What the update sleeps on: the tutorial's `sleepForTimeInterval:`.
    public let clock: AppClock
    /// Story seconds.
    public let unzipSeconds: Double

    private let clockWaits: SleepClock
    private let lineWaiters = LineWaiters()

    public init(conditions: NetworkConditions, trace: OperationTrace) {
        network = SlowNetwork(conditions: conditions, clock: trace.clock, isMainQueue: { MainQueue.isCurrent })
        lines = CallRecorder(trace: trace)
        clock = trace.clock.appClock
        clockWaits = trace.clock
        var random = SeededGenerator(seed: conditions.seed ^ StableHash.fnv1a("unzip"))
        unzipSeconds = 0.5 + 2 * random.nextUnit()
    }

    /// The log to hand the update.
    public var log: AppLog {
        AppLog { [lines, lineWaiters] line in
            lines.record(line)
            lineWaiters.lineAdded()
        }
    }

    /// Returns once every step's completion block has logged its line: a
    /// completion block runs after its operation has finished, on another
    /// thread, so "all finished" is not yet "all completion blocks done".
    public func completionBlocksLogged(_ count: Int = steps.count) async {
        _ = await clockWaits.wait { [self] fire in
            lineWaiters.add(when: { completionBlockLanes.count >= count }, fire)
        }
    }

    /// One step's work, done: its line in the log.
    public struct FinishedStep: Sendable, Equatable {
        public let name: String
        public let line: String
        public let lane: String
        public let ms: Double

        /// The step found nothing to work on ("unzip: nothing to unzip",
        /// "install: upgrade failed: nothing to install"): the one before it
        /// had not left its result when this one looked.
        public var foundNothing: Bool { line.contains("nothing") }
    }

    /// The steps whose work is done, in the order they logged it.
    public var finishedSteps: [FinishedStep] {
        lines.all.compactMap { call in
            let name = String(call.value.prefix { $0 != ":" })
            guard name.count < call.value.count, Self.steps.contains(name) else { return nil }
            return FinishedStep(name: name, line: call.value, lane: call.lane, ms: call.ms)
        }
    }

    /// The lane each step's completion block ran on, once it has ("unzip finished").
    public var completionBlockLanes: [String: String] {
        var lanes: [String: String] = [:]
        for call in lines.all {
            for name in Self.steps where call.value == "\(name) finished" { lanes[name] = call.lane }
        }
        return lanes
    }

    /// The package's download as the network saw it.
    public var downloads: [(startMs: Double, endMs: Double?)] {
        network.log.requests.map { ($0.startMs, $0.endMs) }
    }
}

/// Whoever waits for the log to reach some state, told at each new line.
private final class LineWaiters: @unchecked Sendable {
    private let lock = Locked(.seen)
    private var waiting: [(holds: () -> Bool, fire: @Sendable () -> Void)] = []

    /// Calls `fire` once `holds` is true: now, or after the line that makes it so.
    func add(when holds: @escaping () -> Bool, _ fire: @escaping @Sendable () -> Void) {
        let now = lock.withLock { () -> Bool in
            if holds() { return true }
            waiting.append((holds, fire))
            return false
        }
        if now { fire() }
    }

    func lineAdded() {
        let due = lock.withLock { () -> [@Sendable () -> Void] in
            let due = waiting.filter { $0.holds() }.map(\.fire)
            waiting.removeAll { $0.holds() }
            return due
        }
        for fire in due { fire() }
    }
}
