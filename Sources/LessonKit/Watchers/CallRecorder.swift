import Foundation
import HarnessSync
import LessonSupport

/// The calls an app makes into something the harness handed it (its log, its
/// random numbers), each noted with when it came (on the run's trace) and on
/// which lane. This is how the harness sees what an operation did, and in
/// which order and where, without the operation measuring anything.
///
/// Its lock is seen by Thread Sanitizer (`Locked`), as the trace's is.
public final class CallRecorder<Value: Sendable>: @unchecked Sendable {
    public struct Call: Sendable {
        public let value: Value
        /// "main queue" or "worker N" (`OperationTrace.currentLane()`).
        public let lane: String
        public let ms: Double
    }

    private let trace: OperationTrace
    private let lock = Locked(.seen)
    private var calls: [Call] = []

    public init(trace: OperationTrace) {
        self.trace = trace
    }

    /// Notes a call, on the calling thread.
    public func record(_ value: Value) {
        let call = Call(value: value, lane: trace.currentLane(), ms: trace.now())
        lock.withLock { calls.append(call) }
    }

    /// Every call so far, in the order they came.
    public var all: [Call] { lock.withLock { calls } }

    public var count: Int { lock.withLock { calls.count } }
}

extension CallRecorder where Value == String {
    /// A log for the app whose lines this recorder notes.
    public var log: AppLog { AppLog { [self] line in record(line) } }
}

extension CallRecorder where Value == Void {
    /// Random numbers for the app, seeded; each draw is noted.
    public func random(seed: UInt64) -> RandomSource {
        RandomSource(seed: seed) { [self] in record(()) }
    }
}
