import Foundation

/// Awaiting operations without blocking a thread (and so without blocking the
/// main queue, or a Swift Testing test, while they run).
public enum OperationWaiter {
    /// How often the operations are looked at: a small fraction of any
    /// operation in these lessons (the shortest, a lottery tick, is 50 ms).
    static let pollInterval = Duration.milliseconds(5)

    /// True once every operation has finished (cancelled ones included);
    /// false if `timeoutSeconds` of wall time pass first. Never blocks.
    ///
    /// It looks at `isFinished` every few milliseconds rather than making an
    /// operation that depends on them all: on Linux a waiting operation is a
    /// hazard (swift-corelibs-foundation keeps an unretained pointer from each
    /// dependency to its dependents, so one given up on must first remove its
    /// dependencies, and that can deadlock with a dependency finishing at the
    /// same moment). docs/linux-dependency-hazards.md has the details.
    public static func waitUntilFinished(_ operations: [Operation], timeoutSeconds: Double) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeoutSeconds)
        while !operations.allSatisfy(\.isFinished) {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: pollInterval)
        }
        return true
    }
}
