import Foundation

/// What the network waits on: when a request may start, and when its answer
/// is due. A blocking request calls `admit` on arrival, `sleep(until:)` with
/// its due time, and `leave` when it is over, all on the requesting thread. A
/// fetch that blocks no thread (`SlowNetwork.fetch`) is a task the clock counts
/// in flight (`startTask`, `finishTask`) whose chunks are delivered by `run`.
///
/// A scenario's clock is virtual (LessonKit's `StoryClock`): it moves only
/// when the app has nothing left to do before the next answer is due, so the
/// same flags give the same story on any machine. Code that uses the network
/// outside a scenario gets a `WallClock`.
public protocol NetworkClock: AnyObject, Sendable {
    /// The time now.
    var now: StoryTime { get }

    /// Returns the time the request starts at, once it may (nil: the clock has
    /// been shut down and the request fails).
    func admit(_ url: String) -> StoryTime?

    /// Blocks the calling thread until `due`. False if the clock was shut down first.
    func sleep(until due: StoryTime) -> Bool

    /// The calling thread's request is over.
    func leave()

    /// Ends the clock: sleeping requests wake and fail, later ones fail at once.
    func shutDown()

    /// A fetch that blocks no thread has started, for the operation queue the
    /// calling code runs in, if any. Returns its token for `finishTask`.
    func startTask() -> Int

    func finishTask(_ token: Int)

    /// Runs `work` on `queue` at `instant`; until it returns it is the app's
    /// own work, which the clock waits for. Dropped once the clock is shut down.
    func run(at instant: StoryTime, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void)
}

/// Real time, played `timeScale` times faster: a request sleeps its story
/// time divided by the scale. For code that uses the network on its own,
/// outside a scenario (step 8's update, tests of the network itself).
public final class WallClock: NetworkClock, @unchecked Sendable {
    private let epoch = ContinuousClock.now
    private let timeScale: Double
    // NSCondition, not Synchronization's Mutex: Thread Sanitizer on Linux does not see Mutex.
    private let condition = NSCondition()
    private var isShutDown = false

    public init(timeScale: Double = 1) {
        self.timeScale = max(timeScale, 0.000_001)
    }

    public var now: StoryTime {
        let elapsed = ContinuousClock.now - epoch
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return .seconds(seconds * timeScale)
    }

    public func admit(_ url: String) -> StoryTime? {
        condition.withLock { isShutDown } ? nil : now
    }

    public func sleep(until due: StoryTime) -> Bool {
        let deadline = Date(timeIntervalSinceNow: (due - now).seconds / timeScale)
        condition.lock()
        defer { condition.unlock() }
        while !isShutDown, condition.wait(until: deadline) {}
        return !isShutDown
    }

    public func leave() {}

    public func shutDown() {
        condition.withLock {
            isShutDown = true
            condition.broadcast()
        }
    }

    public func startTask() -> Int { 0 }

    public func finishTask(_ token: Int) {}

    public func run(at instant: StoryTime, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        let wait = max(0, (instant - now).seconds / timeScale)
        queue.asyncAfter(deadline: .now() + wait) { [self] in
            if !condition.withLock({ isShutDown }) { work() }
        }
    }
}
