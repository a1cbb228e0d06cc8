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
    /// operation that depends on them all, because on Linux a waiting
    /// operation is a hazard twice over (lesson 8, "Linux and iOS"):
    /// swift-corelibs-foundation keeps an unretained pointer from each
    /// dependency to its dependents, so a waiter given up on must first remove
    /// its dependencies; and `removeDependency` takes the two operations' locks
    /// in the opposite order from a dependency that is finishing at that
    /// moment, so removing them while the caller cancels the operations
    /// deadlocks both threads (seen: the TSan leg of `.ci/run` hung in the
    /// dependency cycle's timeout).
    public static func waitUntilFinished(_ operations: [Operation], timeoutSeconds: Double) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeoutSeconds)
        while !operations.allSatisfy(\.isFinished) {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: pollInterval)
        }
        return true
    }
}
