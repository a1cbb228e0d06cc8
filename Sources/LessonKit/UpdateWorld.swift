import Foundation
import LessonSupport
import SlowNetwork
import TableKit

/// The world step 8's software update runs in, as the harness makes it and
/// reads it: the network the package comes from, a log whose lines are noted
/// with when and on which lane they were written, and how long the unzip
/// takes, drawn from the seed (with the download's time) so that a seed
/// replays the same race between download and unzip.
///
/// What the update did is read from its log, as the tutorial's reader reads
/// its `NSLog`s: a line "unzip: 13 files" is the unzip's work done; "unzip
/// finished" is its completion block.
public struct UpdateWorld: Sendable {
    /// The update's steps, in the order the tutorial chains them.
    public static let steps = ["download", "unzip", "install"]

    public let network: SlowNetwork
    public let lines: CallRecorder<String>
    public let unzipSeconds: Double
    /// The trace's time when the network's clock began: request times are on that clock.
    private let networkStartMs: Double

    public init(conditions: NetworkConditions, trace: OperationTrace) {
        networkStartMs = trace.now()
        network = SlowNetwork(conditions: conditions, isMainQueue: { MainQueue.isCurrent })
        lines = CallRecorder(trace: trace)
        var random = SeededGenerator(seed: conditions.seed ^ StableHash.fnv1a("unzip"))
        unzipSeconds = conditions.wallSeconds(0.5 + 2 * random.nextUnit())
    }

    /// The log to hand the update.
    public var log: AppLog { lines.log }

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

    /// The package's download as the network saw it, on the trace's clock.
    public var downloads: [(startMs: Double, endMs: Double?)] {
        let scale = max(network.conditions.timeScale, 0.000_001)
        return network.log.requests.map { request in
            (networkStartMs + request.startMs / scale, request.endMs.map { networkStartMs + $0 / scale })
        }
    }
}
