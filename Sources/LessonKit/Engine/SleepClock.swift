import DispatchSeam
import Foundation
import HarnessSync
import LessonSupport
import SlowNetwork

/// The story clock of the steps that are not a table (8, 9 and the checks of
/// exercises 8–10): story time that moves only when every operation it
/// watches is waiting on it, so the same flags give the same figures on a busy
/// machine as on an idle one.
///
/// What waits on it: a thread in a story sleep (`sleep(seconds:)`, the app's
/// `AppClock`), a request in the network (it is the network's clock too), and
/// a story that waits for a while or for something (`wait(atMost:until:)`).
/// What keeps it still: an operation of a watched queue that is running and
/// not asleep on it, or that could start now (its dependencies done, its queue
/// not suspended, a slot free). A queue is watched once one of its operations
/// has slept on the clock, or when the harness names it (`watch`: the main
/// queue, a queue whose first operation must be waited for). When nothing of
/// that is left, the time jumps to the next thing due.
///
/// A change it is not told of (an operation finishing without sleeping) it
/// learns by waiting for that operation on a thread of its own, and a queue
/// letting go of a finished operation from the Dispatch seam's signal as the
/// block doing it ends (`watchDispatchWork`): it never looks again on a timer,
/// and never spins. Its `HangGuard` ends a story that cannot go on: when
/// what keeps it still runs for the guard's limit of processor time, or every
/// thread stays blocked that long in wall time (so too when it is waited on
/// with nothing running and nothing due), it gives up, wakes everyone, and
/// says what was busy (`stuck`).
///
/// Work it does not watch (a thread of its own, a GCD block) it cannot wait
/// for: the time may move on while that work runs.
///
/// Its parts: the time, the threads asleep and the network's work in a
/// `StoryTimeline` (the clock core the image list's `StoryClock` moves too),
/// the story's waits in `StoryWaits`, the queues it learnt in
/// `WatchedQueues`, what keeps the time still in `BusyWork`. This class keeps
/// them under one lock and drives the time on a thread of its own.
public final class SleepClock: NetworkClock, @unchecked Sendable {
    /// Story seconds per wall second when paced for a person watching; nil:
    /// as fast as the app allows.
    private let pace: Double?
    /// Read and moved only by the driving thread.
    private var hangGuard: HangGuard
    /// Starts the thread that hears the Dispatch seam.
    private let startThread: (@escaping @Sendable () -> Void) -> Void
    // NSCondition, not Synchronization's Mutex: Thread Sanitizer on Linux does not see Mutex.
    private let condition = NSCondition()
    private var state = State()

    /// Everything the clock keeps, under `condition`; each part has one job.
    private struct State {
        var timeline = StoryTimeline()
        var waits = StoryWaits()
        var watched = WatchedQueues()
        /// The network's deliveries handed to their queues and not returned yet.
        var deliveriesRunning = 0
        /// Threads woken from a story sleep that are not back from it yet: busy from the moment they are woken,
        /// though the Dispatch seam counts a block asleep until its own thread says otherwise.
        var waking: Set<UInt> = []
        /// The Dispatch seam's number for the run this clock counts (nil: it counts none, `watchDispatchWork`).
        var seamRun: UInt64?
        /// The story's own hold: the time stands still while the story does
        /// something other than wait on the clock (`hold`, `wait`).
        var holds = 1
        var isShutDown = false
        var stuck: String?
        /// Moves at every change, so that the driver's waits hear of it.
        var changeCount = 0

        /// Whether the story lets the time run and something waits for a time to come.
        var wantsTime: Bool {
            holds <= 0 && !(timeline.sleepers.isEmpty && waits.isEmpty && timeline.deliveries.isEmpty)
        }
    }

    /// - Parameters:
    ///   - pace: story seconds per wall second, for a run a person watches.
    ///   - hangSeconds: the hang guard's limit: seconds of processor time, or of wall time with every thread
    ///     blocked, that the app may keep the clock still for.
    public convenience init(pace: Double? = nil, hangSeconds: Double = 30) {
        self.init(pace: pace, hangGuard: HangGuard(limit: .seconds(hangSeconds)))
    }

    /// A clock whose hang guard is `hangGuard`, and whose thread that hears the Dispatch seam
    /// (`watchDispatchWork`) `startThread` starts: a test holds it back to play a late start.
    init(
        pace: Double?, hangGuard: HangGuard,
        startThread: @escaping (@escaping @Sendable () -> Void) -> Void = { Thread.detachNewThread($0) }
    ) {
        self.pace = pace
        self.hangGuard = hangGuard
        self.startThread = startThread
        let driver = Thread { [self] in drive() }
        driver.name = "story clock"
        driver.start()
    }

    /// The clock as the app sees it.
    public var appClock: AppClock { AppClock { [self] in sleep(seconds: $0) } }

    public var now: StoryTime { condition.withLock { state.timeline.now } }

    /// Story milliseconds since the clock began.
    public var milliseconds: Double { now.milliseconds }

    /// What kept the clock still when it gave up; nil while it runs.
    public var stuck: String? { condition.withLock { state.stuck } }

    /// Counts, through the Dispatch seam, the work the story's turns start
    /// (`storyTurn`) from now on: a block they hand to Dispatch (an operation
    /// of any queue, watched or not), and what it hands on, keeps the time
    /// still until it returns or sleeps on the clock. So a tap that starts an
    /// operation on a queue nobody named holds the time until that operation
    /// sleeps, and the clock learns its queue. Heard through the seam's
    /// signal, never by looking again; ended by `shutDown`. One clock in the
    /// process at a time (the seam counts one run).
    /// Called again, it changes nothing.
    public func watchDispatchWork() {
        let since = condition.withLock { () -> UInt64? in
            guard state.seamRun == nil && !state.isShutDown else { return nil }
            // Read here, not when the watching thread starts: the run's work may change the seam before then (step
            // 8's cancelled download ends), and a change read as the start would never be told to the clock.
            let generation = seam_generation()
            state.seamRun = seam_begin_run()
            changed()
            return generation
        }
        guard let since else { return }
        startThread { [self] in
            var generation = since
            while !condition.withLock({ state.isShutDown }) {
                seam_wait_for_change(generation, 60_000_000_000)
                generation = seam_generation()
                poke()
            }
        }
    }

    /// Runs `body` (a tap) as the story's turn: what it hands to Dispatch is
    /// counted (`watchDispatchWork`).
    public func storyTurn<Result>(_ body: () -> Result) -> Result {
        let saved = seam_enter_run()
        defer { seam_restore(saved) }
        return body()
    }

    /// The operation queues whose operations have slept on the clock, in the
    /// order they first did (the main queue among them if its work slept).
    public var queuesSleptIn: [OperationQueue] { condition.withLock { state.watched.sleptIn } }

    /// Watches a queue's operations: the time waits for them.
    public func watch(_ queues: OperationQueue...) {
        condition.withLock {
            for queue in queues { state.watched.watch(queue) }
            changed()
        }
    }

    // MARK: the story's hold

    /// The story is doing something: the time stands still until `release`.
    /// A clock starts held, as the story starts; `wait` lets go while it waits.
    public func hold() {
        condition.withLock {
            state.holds += 1
            changed()
        }
    }

    /// The story lets the time run (a person at the keyboard drives it now).
    public func release() {
        condition.withLock {
            state.holds -= 1
            changed()
        }
    }

    // MARK: waiting on it

    /// Blocks the calling thread for `seconds` of story time. Returns at
    /// once if the clock has given up.
    public func sleep(seconds: Double) {
        _ = sleep(until: now + .seconds(max(seconds, 0)))
    }

    /// Waits for `fire` to be called (true) or for `seconds` of story time to
    /// pass (false), whichever comes first. `start` is handed `fire` and may
    /// call it from any thread, at once or later. With no `seconds`, only the
    /// trigger ends it (or the hang guard: false).
    public func wait(
        atMost seconds: Double? = nil, until start: (_ fire: @escaping @Sendable () -> Void) -> Void = { _ in }
    ) async -> Bool {
        await wait(atMost: seconds, endsWhenIdle: false, until: start)
    }

    /// Waits until the story has nothing left to play: nothing the clock
    /// watches is busy (the story's turns' Dispatch work, the network's
    /// deliveries, the watched queues), no fetch is in flight, and nothing is
    /// due but waits like this one. True then; false if the clock gave up
    /// first (the hang guard: `stuck` says why) or was shut down. So "it never
    /// finished" is read as "the story went idle, and it had not finished":
    /// signalled, never a wall-time window.
    public func waitUntilIdle() async -> Bool {
        await wait(atMost: nil, endsWhenIdle: true) { _ in }
    }

    private func wait(
        atMost seconds: Double?, endsWhenIdle: Bool, until start: (_ fire: @escaping @Sendable () -> Void) -> Void
    ) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let once = Once(continuation)
            let id = condition.withLock { () -> Int? in
                guard !state.isShutDown else { return nil }
                state.holds -= 1
                let id = state.waits.add(
                    StoryWaits.Wait(
                        due: seconds.map { state.timeline.now + .seconds(max($0, 0)) }, endsWhenIdle: endsWhenIdle,
                        resume: { once.resume($0) }))
                changed()
                return id
            }
            guard let id else { return once.resume(false) }
            start { [self] in
                let wait = condition.withLock { () -> StoryWaits.Wait? in
                    defer { changed() }
                    let wait = state.waits.end(id)
                    // The story holds the clock again from the moment its wait ends.
                    if wait != nil { state.holds += 1 }
                    return wait
                }
                wait?.resume(true)
            }
        }
    }

    /// Waits `seconds` of story time.
    public func wait(seconds: Double) async {
        _ = await wait(atMost: seconds)
    }

    /// True once every operation has finished (cancelled ones included);
    /// false if `seconds` of story time pass first. Waited for on a thread of
    /// its own, blocked until they are done: nothing looks again and again.
    ///
    /// Until then the clock also watches them where it watches no queue of
    /// theirs: one that could start keeps the time still.
    public func waitUntilFinished(_ operations: [Operation], atMost seconds: Double? = nil) async -> Bool {
        let waited = UncheckedOperations(operations)
        let id = condition.withLock { () -> Int in
            defer { changed() }
            return state.waits.note(operations: operations) { waited.all.allSatisfy(\.isFinished) }
        }
        defer { condition.withLock { state.waits.forget(id) } }
        return await wait(atMost: seconds) { fire in
            Self.whenFinished(operations, fire)
        }
    }

    /// True once `queue` holds no operation (it has let go of each, after
    /// reading its completion block); false if `seconds` of story time pass
    /// first, or the clock gives up.
    ///
    /// corelibs lets go of an operation after `waitUntilAllOperationsAreFinished`
    /// would return and says nothing when it has; the end of the Dispatch block
    /// that lets go is all that follows. So the clock must count the queue's work
    /// (`watchDispatchWork`, its operations added in `storyTurn`): the seam's
    /// signal is heard then, and a queue that never lets go is the hang guard's.
    @discardableResult
    public func waitUntilEmpty(_ queue: OperationQueue, atMost seconds: Double? = nil) async -> Bool {
        precondition(
            condition.withLock { state.seamRun != nil },
            "waitUntilEmpty hears a queue let go through the Dispatch seam: call watchDispatchWork first")
        let queue = UncheckedQueue(queue)
        let id = condition.withLock { () -> Int in
            defer { changed() }
            return state.waits.note { queue.queue.operationCount == 0 }
        }
        defer { condition.withLock { state.waits.forget(id) } }
        return await wait(atMost: seconds) { fire in
            // Not `waitUntilAllOperationsAreFinished` first: for an operation never announced it would block for good.
            Thread.detachNewThread { [self] in
                while true {
                    // Read before looking, so a block ending between the look and the wait is not missed.
                    let generation = seam_generation()
                    if queue.queue.operationCount == 0 || condition.withLock({ state.isShutDown }) { break }
                    seam_wait_for_change(generation, 60_000_000_000)
                }
                fire()
            }
        }
    }

    /// Calls `done` on a thread of its own once every operation has finished.
    ///
    /// `waitUntilFinished()` adds no dependency (a waiting operation would:
    /// docs/linux-dependency-hazards.md says why that is a hazard on Linux).
    static func whenFinished(_ operations: [Operation], _ done: @escaping @Sendable () -> Void) {
        let operations = UncheckedOperations(operations)
        Thread.detachNewThread {
            for operation in operations.all { operation.waitUntilFinished() }
            done()
        }
    }

    // MARK: the network's side

    public func admit(_ url: String) -> StoryTime? {
        condition.withLock { state.isShutDown ? nil : state.timeline.now }
    }

    public func sleep(until due: StoryTime) -> Bool {
        let wake = DispatchSemaphore(value: 0)
        let current = OperationQueue.current
        let thread = StoryTimeline.currentThread
        let asleep = condition.withLock { () -> Bool in
            guard !state.isShutDown else { return false }
            if let current { state.watched.noteSleep(in: current) }
            state.timeline.sleep(thread, until: due, wake: wake, queue: current.map(ObjectIdentifier.init))
            changed()
            return true
        }
        guard asleep else { return false }
        // Counted Dispatch work waits in the story meanwhile; the wait itself is the clock's, not the app's.
        if seam_park(1) != 0 { poke() }
        let saved = seam_leave_run()
        wake.wait()
        seam_restore(saved)
        seam_park(0)
        return condition.withLock {
            state.waking.remove(thread)
            changed()
            return !state.isShutDown
        }
    }

    public func leave() {}

    /// Ends the clock: every sleeper wakes, every wait ends (false), later
    /// ones return at once.
    public func shutDown() {
        let waits = condition.withLock { () -> [StoryWaits.Wait] in
            if let run = state.seamRun, !state.isShutDown {
                seam_end_run(run)
                seam_note_change()
            }
            state.isShutDown = true
            _ = state.timeline.wakeEveryone()
            state.timeline.dropDeliveries()
            let waits = state.waits.takeAll()
            changed()
            return waits
        }
        for wait in waits { wait.resume(false) }
    }

    /// A fetch that blocks no thread is in flight: it waits in the story for
    /// its deliveries (`run(at:on:)`), and the story is not over until it ends.
    public func startTask() -> Int {
        condition.withLock {
            defer { changed() }
            return state.timeline.startFetch()
        }
    }

    public func finishTask(_ token: Int) {
        condition.withLock {
            state.timeline.finishFetch(token)
            changed()
        }
    }

    /// A delivery of the network (a fetch's chunk): the app's work when it
    /// is due, which the clock waits for until it returns. It runs as the
    /// story's turn (`storyTurn`), so what it hands to Dispatch (a queue's
    /// next operation, a `completionBlock`) keeps the time still too.
    public func run(at instant: StoryTime, on queue: DispatchQueue, _ work: @escaping @Sendable () -> Void) {
        condition.withLock {
            guard !state.isShutDown else { return }
            state.timeline.deliver(at: instant, on: queue, work)
            changed()
        }
    }

    // MARK: moving the time

    /// The clock's own thread: moves the time on whenever nothing watched is
    /// busy, and something waits for a time to come.
    private func drive() {
        // Paced, story time runs with the wall clock from here; reset while nothing waits for a time, so that a
        // person who presses start after a minute sees the first roll 50 ms later, not a minute of them at once.
        var paceOrigin = (wall: ContinuousClock.now, story: StoryTime.zero)
        while true {
            let (count, wantsTime, isShutDown) = condition.withLock {
                (state.changeCount, state.wantsTime, state.isShutDown)
            }
            if isShutDown { return }
            // The guard's stretch lasts until the story moves on: it lets the time run no more, or the time moves.
            guard wantsTime else {
                hangGuard.clear()
                paceOrigin = (.now, now)
                waitForChange(since: count, until: nil)
                continue
            }
            if let busy = busyWork() {
                guard waitUnderGuard(since: count, busy) else { return }
                continue
            }
            guard moveOnWhenIdle(since: count, pacedFrom: paceOrigin) else { return }
        }
    }

    /// Waits for a change since `count` (true) while `what` keeps the time
    /// still, the hang guard looking at the run every `guardLook` meanwhile;
    /// false if it gave up.
    private func waitUnderGuard(since count: Int, _ what: String) -> Bool {
        while true {
            hangGuard.note(what)
            if let verdict = hangGuard.verdict {
                giveUp(verdict)
                return false
            }
            if waitForChange(since: count, until: .now + Self.guardLook) { return true }
        }
    }

    /// How often the hang guard looks at a run that keeps the clock still: it only reads the run, never the
    /// clock's state, so the clock still hears of changes and nothing else.
    private static let guardLook = Duration.milliseconds(100)

    /// Nothing watched is busy: lets held work go, or moves the time to the
    /// next thing due, or ends the waits for the story's end. False if the
    /// hang guard gave up.
    private func moveOnWhenIdle(since count: Int, pacedFrom paceOrigin: (wall: ContinuousClock.Instant, story: StoryTime))
        -> Bool
    {
        // Idle: app work waiting on a semaphore that can be taken takes it, earliest handed over first.
        if condition.withLock({ state.seamRun != nil }) && seam_grant_semaphores() > 0 {
            hangGuard.clear()
            return true
        }
        guard let next = nextDue(ifUnchangedSince: count) else {
            if endWaitsForIdle(ifUnchangedSince: count) {
                hangGuard.clear()
                return true
            }
            return waitWithNothingDue(since: count)
        }
        // Paced for a person watching: not before the wall clock has caught up (anything new comes first).
        if let pace,
            waitForChange(since: count, until: paceOrigin.wall + .seconds((next - paceOrigin.story).seconds / pace))
        {
            return true
        }
        hangGuard.clear()
        advance(to: next, ifUnchangedSince: count)
        return true
    }

    /// Waited on with nothing running and nothing due: only the hang guard
    /// ends that, unless something changes. False if it gave up.
    private func waitWithNothingDue(since count: Int) -> Bool {
        let fetches = condition.withLock { () -> Int? in
            guard state.changeCount == count && state.timeline.sleepers.isEmpty else { return nil }
            return state.timeline.fetchesInFlight.count
        }
        guard let fetches else { return true }
        return waitUnderGuard(
            since: count,
            fetches > 0
                ? "\(counted(fetches, "request")) in flight with nothing of it due"
                : "waited on for something that nothing running will do, and nothing is due")
    }

    /// The earliest time due, if nothing changed since `count`.
    private func nextDue(ifUnchangedSince count: Int) -> StoryTime? {
        condition.withLock {
            guard state.changeCount == count else { return nil }
            return [state.timeline.nextDue, state.waits.nextDue].compactMap { $0 }.min()
        }
    }

    /// Ends the waits for the story's end (`waitUntilIdle`), if nothing
    /// changed since `count` and nothing is left to play: no sleeper, no
    /// fetch in flight, nothing due. True if any ended.
    private func endWaitsForIdle(ifUnchangedSince count: Int) -> Bool {
        let ended = condition.withLock { () -> [StoryWaits.Wait] in
            let timeline = state.timeline
            guard
                state.changeCount == count && timeline.sleepers.isEmpty && timeline.fetchesInFlight.isEmpty
                    && timeline.deliveries.isEmpty
            else { return [] }
            let ending = state.waits.takeEndingWhenIdle()
            state.holds += ending.count
            if !ending.isEmpty { changed() }
            return ending
        }
        for wait in ended { wait.resume(true) }
        return !ended.isEmpty
    }

    /// Moves the time to `instant`, wakes the sleepers due by then and hands
    /// the network's deliveries due to their queues (`StoryTimeline.advance`);
    /// if none is, ends the waits due. The app's work at an instant comes
    /// before the story's step at the same instant (a roll due at 1 s is drawn
    /// before the script's pause at 1 s), whichever thread would win.
    private func advance(to instant: StoryTime, ifUnchangedSince count: Int) {
        let ended = condition.withLock { () -> [StoryWaits.Wait] in
            guard state.changeCount == count else { return [] }
            let due = state.timeline.advance(to: instant)
            state.waking.formUnion(due.wokenThreads)
            for delivery in due.deliveries { start(delivery) }
            guard due.isEmpty else {
                changed()
                return []
            }
            let ended = state.waits.takeDue(by: state.timeline.now)
            state.holds += ended.count
            changed()
            return ended
        }
        for wait in ended { wait.resume(false) }
    }

    /// Hands a delivery to its queue, as the story's turn (`storyTurn`): the
    /// time waits for it until it returns. Under `condition`.
    private func start(_ delivery: StoryTimeline.Delivery) {
        state.deliveriesRunning += 1
        delivery.queue.async { [self] in
            storyTurn { delivery.work() }
            condition.withLock {
                state.deliveriesRunning -= 1
                changed()
            }
        }
    }

    /// What keeps the time still now, said for a person; nil when nothing
    /// does. Arranges to hear when each busy operation finishes.
    ///
    /// The watched work is read a piece at a time, and an operation may finish
    /// between two reads, handing over to one read before it as waiting (unzip
    /// to install): nothing busy counts only once a second look reads the
    /// same. States only move forward, so it was then true at one instant.
    private func busyWork() -> String? {
        let (waking, queues, sleepers, deliveries, waitedFor, conditions, watchesDispatchWork) = condition.withLock {
            (
                state.waking.count, state.watched.queues, Array(state.timeline.sleepers.values),
                state.deliveriesRunning, Array(state.waits.operations.values.joined()),
                Array(state.waits.conditions.values), state.seamRun != nil
            )
        }
        if waking > 0 { return "\(counted(waking, "thread")) woken from a story sleep, not back from it yet" }
        var look = WatchedWork(queues: queues, waitedFor: waitedFor, conditions: conditions)
        while true {
            if let busy = BusyWork(
                in: look, sleepers: sleepers, deliveriesRunning: deliveries, watchesDispatchWork: watchesDispatchWork)
            {
                return arrangeToHear(busy)
            }
            let again = WatchedWork(queues: queues, waitedFor: waitedFor, conditions: conditions)
            if again == look { return nil }
            look = again
        }
    }

    /// Arranges to hear when what is busy ends, and says what it is.
    private func arrangeToHear(_ busy: BusyWork) -> String {
        // The main queue's work is heard by a turn of the main queue after it (first in, first out).
        let (fresh, askMainTurn) = condition.withLock { () -> ([Operation], Bool) in
            let fresh = busy.toAwait.filter { !state.watched.awaited.contains(ObjectIdentifier($0)) }
            for operation in fresh { state.watched.awaited.insert(ObjectIdentifier(operation)) }
            let askMainTurn = busy.mainQueueBusy && !state.watched.mainTurnAsked
            if askMainTurn { state.watched.mainTurnAsked = true }
            return (fresh, askMainTurn)
        }
        for operation in fresh {
            Self.whenFinished([operation]) { [weak self] in self?.poke() }
        }
        if askMainTurn {
            DispatchQueue.main.async { [self] in
                condition.withLock {
                    state.watched.mainTurnAsked = false
                    changed()
                }
            }
        }
        return busy.what.joined(separator: "; ")
    }

    /// Something the clock watches may have changed.
    private func poke() {
        condition.withLock { changed() }
    }

    private func giveUp(_ why: String) {
        condition.withLock { state.stuck = why }
        FileHandle.standardError.write(Data("story clock: \(why)\n".utf8))
        shutDown()
    }

    /// Waits until something changes since `count` (true), or `deadline` passes (false).
    @discardableResult
    private func waitForChange(since count: Int, until deadline: ContinuousClock.Instant?) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while state.changeCount == count && !state.isShutDown {
            guard let deadline else {
                condition.wait()
                continue
            }
            let left = deadline - .now
            guard left > .zero else { return false }
            _ = condition.wait(until: Date(timeIntervalSinceNow: left.seconds))
        }
        return true
    }

    private func changed() {
        state.changeCount += 1
        condition.broadcast()
    }
}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// Resumes a continuation once, whoever asks first.
private final class Once: Sendable {
    private let continuation: Locked<CheckedContinuation<Bool, Never>?>

    init(_ continuation: CheckedContinuation<Bool, Never>) {
        self.continuation = Locked(continuation, .seen)
    }

    func resume(_ value: Bool) {
        continuation.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }?.resume(returning: value)
    }
}

/// Operations handed to a thread that only waits for them, or to a check of them.
private struct UncheckedOperations: @unchecked Sendable {
    let all: [Operation]
    init(_ all: [Operation]) { self.all = all }
}

/// A queue handed to a thread that only waits for it.
private struct UncheckedQueue: @unchecked Sendable {
    let queue: OperationQueue
    init(_ queue: OperationQueue) { self.queue = queue }
}
