import Foundation
import UnseenSync

/// A value of the harness's that several threads share, read and written only under its lock; `Locked<Void>` (made
/// with `Locked()`) is a lock for state kept beside it.
///
/// **Hidden from Thread Sanitizer by default** (`.hidden`): the lock, and what `withLock`'s body reads and writes,
/// run inside `unseen_begin` … `unseen_end` (`UnseenSync`). The story clock's, the network's and the instruments'
/// locks are taken on the app's threads and on the main queue; seen, each would order every app thread after the
/// main queue's last look and hide the app's own races (docs/architecture.md, "The race run").
///
/// **`.seen`, the exception**, for a lock whose own reads and writes Thread Sanitizer should check in `.ci/run`'s
/// Thread Sanitizer leg, where the whole package is instrumented: the `lessons` command's threads, child processes
/// and the terminal, and the recorders of the operation stories (steps 8, 9 and 11, which no race check plays). A
/// seen lock that the app's threads take orders them, in the race build too: what a race run plays records the
/// learner's code under hidden locks only (exercise 10's `AsyncOperationChecks.Record` among them).
///
/// Not Synchronization's `Mutex` for either: it waits on a futex of its own, which Thread Sanitizer on Linux never
/// sees, so in that leg the harness's accesses under a `Mutex` were reported as races.
public final class Locked<Value>: @unchecked Sendable {
    /// Whether Thread Sanitizer sees the lock and what is done under it (see the type).
    public enum Sight: Sendable {
        case hidden
        case seen
    }

    private let lock = NSLock()
    private let sight: Sight
    private var value: Value

    public init(_ value: Value, _ sight: Sight = .hidden) {
        self.value = value
        self.sight = sight
    }

    /// Runs `body` on the value, under the lock, out of Thread Sanitizer's sight unless the lock is `.seen`.
    @discardableResult
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try locked { try body(&value) }
    }

    /// Runs `body` under the lock, out of Thread Sanitizer's sight unless the lock is `.seen`.
    fileprivate func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        guard sight == .hidden else { return try lock.withLock(body) }
        unseen_begin()
        defer { unseen_end() }
        return try lock.withLock(body)
    }

    /// The value now, read under the lock.
    public var current: Value { withLock { $0 } }
}

extension Locked where Value == Void {
    /// A lock for state kept beside it.
    public convenience init(_ sight: Sight = .hidden) {
        self.init((), sight)
    }

    /// Runs `body` under the lock, out of Thread Sanitizer's sight unless the lock is `.seen`. The empty value is
    /// never accessed: Thread Sanitizer places an access to a value of no size at the object's own first bytes,
    /// which every call reads unlocked, and reported each `.seen` lock's use as a race.
    @discardableResult
    public func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        try locked(body)
    }
}
