import Foundation
import SlowNetwork

/// The tests' one way to wait for what other threads do: whatever changes the
/// thing waited for calls `notify()`, and `wait` looks again at each
/// notification, never on a timer. The wait runs on a thread of its own, so it
/// holds none of Swift's few cooperative threads and needs no `Task.sleep`
/// (a polling `Task.sleep` loop once never woke in a loaded run of the suite).
final class Changes: @unchecked Sendable {
    /// How long a wait may last before it fails: a hang guard, not a timing.
    static let hangGuard: TimeInterval = 60

    // NSCondition, as ManualClock: Thread Sanitizer on Linux does not see Mutex.
    private let condition = NSCondition()
    private let limit: TimeInterval
    private let sayHang: @Sendable (String) -> Void

    /// - Parameters:
    ///   - limit: the hang guard's limit, in seconds of wall time.
    ///   - sayHang: where a wait that ran out says so, from the guard's own thread, before the waiting task
    ///     resumes: its test fails only once a cooperative thread runs it again, which a starved pool never does
    ///     (docs/performance.md, "The cooperative pool"), so the hang is said first where a person reads it.
    init(
        hangGuard limit: TimeInterval = Changes.hangGuard,
        sayHang: @escaping @Sendable (String) -> Void = Changes.sayOnStandardError
    ) {
        self.limit = limit
        self.sayHang = sayHang
    }

    func notify() {
        condition.withLock { condition.broadcast() }
    }

    /// Returns once `holds` is true; throws, naming `what`, if it is still
    /// false after the hang guard's limit, which it also says at once (`sayHang`).
    func wait(_ what: String, until holds: @escaping @Sendable () -> Bool) async throws {
        let hang = hang(what)
        let held = await Rig.onThread {
            let held = self.blockUntil(holds)
            if !held { self.sayHang(hang.description) }
            return held
        }
        if !held { throw hang }
    }

    /// The same wait, blocking the calling thread: for a test that holds the
    /// main queue on purpose while the others work. False after the hang guard's limit.
    func blockUntil(_ holds: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: limit)
        condition.lock()
        defer { condition.unlock() }
        while !holds() {
            // `holds` is read under the lock, so a notification between the look and the wait is not lost.
            guard condition.wait(until: deadline) || holds() else { return false }
        }
        return true
    }

    func hang(_ what: String) -> TestFailure {
        let seconds = limit.rounded() == limit ? "\(Int(limit))" : "\(limit)"
        return TestFailure("hang guard: after \(seconds) s still waiting for \(what)")
    }

    static let sayOnStandardError: @Sendable (String) -> Void = { hang in
        FileHandle.standardError.write(Data("\(hang) (said by the guard's own thread)\n".utf8))
    }

    /// Returns once `queue` holds no operation; throws, naming `what`, after `hangGuard` seconds.
    static func waitUntilEmpty(_ queue: OperationQueue, _ what: String) async throws {
        try await waitFor(what, blockingCall: { queue.waitUntilAllOperationsAreFinished() }) { queue.operationCount == 0 }
    }

    /// Returns once `operation` reads finished (its `completionBlock` can run a moment before).
    static func waitUntilFinished(_ operation: Operation, _ what: String) async throws {
        try await waitFor(what, blockingCall: { operation.waitUntilFinished() }) { operation.isFinished }
    }

    /// Foundation's own blocking wait, made on a thread of its own, is the notification.
    private static func waitFor(
        _ what: String, blockingCall: @escaping @Sendable () -> Void, until holds: @escaping @Sendable () -> Bool
    ) async throws {
        let changes = Changes()
        Thread.detachNewThread {
            blockingCall()
            changes.notify()
        }
        try await changes.wait(what, until: holds)
    }
}

/// A clock that can be waited on: it notifies its `changes` whenever a request
/// starts, is scheduled or ends.
protocol WatchedNetworkClock: NetworkClock {
    var changes: Changes { get }
}

/// Any network clock, watched: a test waits for "two requests in flight" on
/// the notifications of the requests themselves.
final class WatchedClock: WatchedNetworkClock, @unchecked Sendable {
    let changes = Changes()
    private let clock: any NetworkClock

    init(_ clock: any NetworkClock) { self.clock = clock }

    var now: StoryTime { clock.now }

    func admit(_ url: String) -> StoryTime? { clock.admit(url) }

    /// A request sleeps once it is logged in flight.
    func sleep(until due: StoryTime) -> Bool {
        changes.notify()
        return clock.sleep(until: due)
    }

    /// Called once a blocking request's end is logged.
    func leave() {
        clock.leave()
        changes.notify()
    }

    func shutDown() {
        clock.shutDown()
        changes.notify()
    }

    func startTask() -> Int { clock.startTask() }

    /// Called once a suspending request's end is logged.
    func finishTask(_ token: Int) {
        clock.finishTask(token)
        changes.notify()
    }

    /// A suspending request schedules its answer once it is logged in flight.
    func run(at instant: StoryTime, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        clock.run(at: instant, on: queue) { [changes] in
            work()
            changes.notify()
        }
        changes.notify()
    }
}

extension SlowNetwork {
    /// Waits until `holds` is true, looking again each time a request of this
    /// network starts or ends (its clock must be a `WatchedNetworkClock`).
    func wait(_ what: String, until holds: @escaping @Sendable () -> Bool) async throws {
        guard let clock = clock as? any WatchedNetworkClock else {
            throw TestFailure("waiting for \(what) on a network whose clock is not watched")
        }
        try await clock.changes.wait(what, until: holds)
    }
}
