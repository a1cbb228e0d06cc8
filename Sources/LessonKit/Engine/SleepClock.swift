import DispatchSeam
import Foundation
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
/// and never spins. One wall-time limit is left, the hang guard: when
/// the same work keeps it still for `hangSeconds`, or it is waited on with
/// nothing running and nothing due, it gives up, wakes everyone, and says what
/// was busy (`stuck`).
///
/// Work it does not watch (a thread of its own, a GCD block) it cannot wait
/// for: the time may move on while that work runs.
public final class SleepClock: NetworkClock, @unchecked Sendable {
    /// Story seconds per wall second when paced for a person watching; nil:
    /// as fast as the app allows.
    private let pace: Double?
    private let hangSeconds: Double
    // NSCondition, not Synchronization's Mutex: Thread Sanitizer on Linux does not see Mutex.
    private let condition = NSCondition()
    private var state = State()

    private struct State {
        var time = StoryTime.zero
        var isShutDown = false
        var stuck: String?
        var changeCount = 0
        /// The last id handed out, shared by sleepers, timers, waits and the
        /// network's work: deliveries run in the order of their ids.
        var lastID = 0
        /// The story's own hold: the time stands still while the story does
        /// something other than wait on the clock (`hold`, `wait`).
        var holds = 1
        var waits = Waits()
        var network = NetworkWork()
        var watched = Watched()
    }

    /// What waits on the clock: threads asleep, the story's waits and what each waits for.
    private struct Waits {
        var sleepers: [Int: Sleeper] = [:]
        var timers: [Int: Timer] = [:]
        /// Operations a story waits for (`waitUntilFinished`), by wait.
        var waitedFor: [Int: [Operation]] = [:]
        /// What each wait for a condition waits for: once it holds, the
        /// wait's trigger is on its way, and the time must not run past it.
        var awaitedConditions: [Int: @Sendable () -> Bool] = [:]
    }

    /// The network's work that holds no thread.
    private struct NetworkWork {
        /// The network's deliveries (a fetch's chunks), due and running.
        var deliveries: [Int: Delivery] = [:]
        var deliveriesRunning = 0
        /// Fetches that block no thread, in flight (`startTask`): each has a
        /// delivery due or running until it ends.
        var fetchesInFlight: Set<Int> = []
    }

    /// What the clock watches of the app's queues, and how it hears of them.
    private struct Watched {
        var queues: [OperationQueue] = []
        /// The queues whose operations have slept on the clock, in the order they first did.
        var sleptIn: [OperationQueue] = []
        /// Operations a thread of the clock's waits on (`whenFinished`).
        var awaited: Set<ObjectIdentifier> = []
        /// A turn of the main queue asked for, to hear when its work so far is done.
        var mainTurnAsked = false
        /// Whether the app's Dispatch work is counted (`watchDispatchWork`).
        var watchesDispatchWork = false
        /// The Dispatch seam's number for the run this clock counts (0: none).
        var seamRun: UInt64 = 0
    }

    private struct Sleeper {
        let due: StoryTime
        /// The operation queue whose operation sleeps (nil: none).
        let queue: ObjectIdentifier?
        let wake: DispatchSemaphore
    }

    private struct Delivery {
        let due: StoryTime
        let queue: DispatchQueue
        let work: @Sendable () -> Void
    }

    private struct Timer {
        /// Nil: only its trigger ends it (or the story's end, `endsWhenIdle`).
        let due: StoryTime?
        /// It ends (true) when the story has nothing left to play (`waitUntilIdle`).
        var endsWhenIdle = false
        let resume: @Sendable (Bool) -> Void
    }

    /// - Parameters:
    ///   - pace: story seconds per wall second, for a run a person watches.
    ///   - hangSeconds: wall seconds the same work may keep the clock still.
    public init(pace: Double? = nil, hangSeconds: Double = 30) {
        self.pace = pace
        self.hangSeconds = hangSeconds
        let driver = Thread { [self] in drive() }
        driver.name = "story clock"
        driver.start()
    }

    /// The clock as the app sees it.
    public var appClock: AppClock { AppClock { [self] in sleep(seconds: $0) } }

    public var now: StoryTime { condition.withLock { state.time } }

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
        let begins = condition.withLock { () -> Bool in
            guard !state.watched.watchesDispatchWork && !state.isShutDown else { return false }
            state.watched.seamRun = seam_begin_run()
            state.watched.watchesDispatchWork = true
            changed()
            return true
        }
        guard begins else { return }
        Thread.detachNewThread { [self] in
            var generation = seam_generation()
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
            for queue in queues where !state.watched.queues.contains(where: { $0 === queue }) { state.watched.queues.append(queue) }
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
                state.lastID += 1
                state.waits.timers[state.lastID] = Timer(
                    due: seconds.map { state.time + .seconds(max($0, 0)) }, endsWhenIdle: endsWhenIdle,
                    resume: { once.resume($0) })
                changed()
                return state.lastID
            }
            guard let id else { return once.resume(false) }
            start { [self] in
                let timer = condition.withLock { () -> Timer? in
                    defer { changed() }
                    let timer = state.waits.timers.removeValue(forKey: id)
                    // The story holds the clock again from the moment its wait ends.
                    if timer != nil { state.holds += 1 }
                    return timer
                }
                timer?.resume(true)
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
            state.lastID += 1
            state.waits.waitedFor[state.lastID] = operations
            state.waits.awaitedConditions[state.lastID] = { waited.all.allSatisfy(\.isFinished) }
            changed()
            return state.lastID
        }
        defer {
            condition.withLock {
                state.waits.waitedFor[id] = nil
                state.waits.awaitedConditions[id] = nil
            }
        }
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
            condition.withLock { state.watched.watchesDispatchWork },
            "waitUntilEmpty hears a queue let go through the Dispatch seam: call watchDispatchWork first")
        let queue = UncheckedQueue(queue)
        let id = condition.withLock { () -> Int in
            state.lastID += 1
            state.waits.awaitedConditions[state.lastID] = { queue.queue.operationCount == 0 }
            changed()
            return state.lastID
        }
        defer { condition.withLock { state.waits.awaitedConditions[id] = nil } }
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
        condition.withLock { state.isShutDown ? nil : state.time }
    }

    public func sleep(until due: StoryTime) -> Bool {
        let wake = DispatchSemaphore(value: 0)
        let current = OperationQueue.current
        let queue = current.map(ObjectIdentifier.init)
        let asleep = condition.withLock { () -> Bool in
            guard !state.isShutDown else { return false }
            // The app's queues are learnt from what sleeps: none need be declared.
            if let current, !state.watched.queues.contains(where: { $0 === current }) { state.watched.queues.append(current) }
            if let current, !state.watched.sleptIn.contains(where: { $0 === current }) { state.watched.sleptIn.append(current) }
            state.lastID += 1
            state.waits.sleepers[state.lastID] = Sleeper(due: due, queue: queue, wake: wake)
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
        return condition.withLock { !state.isShutDown }
    }

    public func leave() {}

    /// Ends the clock: every sleeper wakes, every wait ends (false), later
    /// ones return at once.
    public func shutDown() {
        let timers = condition.withLock { () -> [Timer] in
            if state.watched.watchesDispatchWork && !state.isShutDown {
                seam_end_run(state.watched.seamRun)
                seam_note_change()
            }
            state.isShutDown = true
            for sleeper in state.waits.sleepers.values { sleeper.wake.signal() }
            state.waits.sleepers = [:]
            state.network.deliveries = [:]
            let timers = Array(state.waits.timers.values)
            state.waits.timers = [:]
            changed()
            return timers
        }
        for timer in timers { timer.resume(false) }
    }

    /// A fetch that blocks no thread is in flight: it waits in the story for
    /// its deliveries (`run(at:on:)`), and the story is not over until it ends.
    public func startTask() -> Int {
        condition.withLock {
            state.lastID += 1
            state.network.fetchesInFlight.insert(state.lastID)
            changed()
            return state.lastID
        }
    }

    public func finishTask(_ token: Int) {
        condition.withLock {
            state.network.fetchesInFlight.remove(token)
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
            state.lastID += 1
            state.network.deliveries[state.lastID] = Delivery(due: max(instant, state.time), queue: queue, work: work)
            changed()
        }
    }

    // MARK: moving the time

    /// The clock's own thread: moves the time on whenever nothing watched is
    /// busy, and something waits for a time to come.
    private func drive() {
        var busySince: (what: String, at: ContinuousClock.Instant)?
        // Paced, story time runs with the wall clock from here; reset while nothing waits for a time, so that a
        // person who presses start after a minute sees the first roll 50 ms later, not a minute of them at once.
        var paceOrigin = (wall: ContinuousClock.now, story: StoryTime.zero)
        while true {
            let (count, wantsTime, isShutDown) = condition.withLock {
                (
                    state.changeCount,
                    state.holds <= 0
                        && (!state.waits.sleepers.isEmpty || !state.waits.timers.isEmpty || !state.network.deliveries.isEmpty),
                    state.isShutDown
                )
            }
            if isShutDown { return }
            guard wantsTime else {
                busySince = nil
                paceOrigin = (.now, now)
                waitForChange(since: count, until: nil)
                continue
            }
            if let busy = busyWork() {
                if busySince?.what != busy { busySince = (busy, .now) }
                let limit = busySince!.at + .seconds(hangSeconds)
                if !waitForChange(since: count, until: limit) && ContinuousClock.now >= limit {
                    giveUp("the story clock waited \(Int(hangSeconds)) s of wall time for \(busy)")
                    return
                }
                continue
            }
            busySince = nil
            // Idle: app work waiting on a semaphore that can be taken takes it, earliest handed over first.
            if condition.withLock({ state.watched.watchesDispatchWork }) && seam_grant_semaphores() > 0 { continue }
            guard let next = nextDue(ifUnchangedSince: count) else {
                if endWaitsForIdle(ifUnchangedSince: count) { continue }
                if condition.withLock({ state.changeCount == count && state.waits.sleepers.isEmpty }) {
                    // Waited on with nothing running and nothing due: only the hang guard ends that.
                    let limit = ContinuousClock.now + .seconds(hangSeconds)
                    if !waitForChange(since: count, until: limit) {
                        let fetches = condition.withLock { state.network.fetchesInFlight.count }
                        giveUp(
                            fetches > 0
                                ? "\(counted(fetches, "request")) in flight with nothing of it due"
                                : "waited on for something that nothing running will do, and nothing is due")
                        return
                    }
                }
                continue
            }
            // Paced for a person watching: not before the wall clock has caught up (anything new comes first).
            if let pace,
                waitForChange(since: count, until: paceOrigin.wall + .seconds((next - paceOrigin.story).seconds / pace))
            {
                continue
            }
            advance(to: next, ifUnchangedSince: count)
        }
    }

    /// The earliest time due, if nothing changed since `count`.
    private func nextDue(ifUnchangedSince count: Int) -> StoryTime? {
        condition.withLock {
            guard state.changeCount == count else { return nil }
            return
                (state.waits.sleepers.values.map(\.due) + state.network.deliveries.values.map(\.due)
                + state.waits.timers.values.compactMap(\.due)).min()
        }
    }

    /// Ends the waits for the story's end (`waitUntilIdle`), if nothing
    /// changed since `count` and nothing is left to play: no sleeper, no
    /// fetch in flight, nothing due. True if any ended.
    private func endWaitsForIdle(ifUnchangedSince count: Int) -> Bool {
        let ended = condition.withLock { () -> [Timer] in
            guard
                state.changeCount == count && state.waits.sleepers.isEmpty && state.network.fetchesInFlight.isEmpty
                    && state.network.deliveries.isEmpty
            else { return [] }
            let ending = state.waits.timers.filter(\.value.endsWhenIdle)
            for id in ending.keys { state.waits.timers[id] = nil }
            state.holds += ending.count
            if !ending.isEmpty { changed() }
            return ending.sorted { $0.key < $1.key }.map(\.value)
        }
        for timer in ended { timer.resume(true) }
        return !ended.isEmpty
    }

    /// Moves the time to `instant` and wakes the sleepers due by then; if
    /// none is, ends the waits due. The app's work at an instant comes before
    /// the story's step at the same instant (a roll due at 1 s is drawn
    /// before the script's pause at 1 s), whichever thread would win.
    private func advance(to instant: StoryTime, ifUnchangedSince count: Int) {
        let due = condition.withLock { () -> [Timer] in
            guard state.changeCount == count else { return [] }
            state.time = max(state.time, instant)
            let sleepersDue = state.waits.sleepers.filter { $0.value.due <= state.time }
            for (id, sleeper) in sleepersDue {
                state.waits.sleepers[id] = nil
                sleeper.wake.signal()
            }
            // Deliveries in the order they were asked for.
            let deliveriesDue = state.network.deliveries.filter { $0.value.due <= state.time }.sorted { $0.key < $1.key }
            for (id, delivery) in deliveriesDue {
                state.network.deliveries[id] = nil
                state.network.deliveriesRunning += 1
                delivery.queue.async { [self] in
                    storyTurn { delivery.work() }
                    condition.withLock {
                        state.network.deliveriesRunning -= 1
                        changed()
                    }
                }
            }
            guard sleepersDue.isEmpty && deliveriesDue.isEmpty else {
                changed()
                return []
            }
            let due = state.waits.timers.filter { $0.value.due.map { $0 <= state.time } ?? false }
            for id in due.keys { state.waits.timers[id] = nil }
            state.holds += due.count
            changed()
            return due.sorted { $0.key < $1.key }.map(\.value)
        }
        for timer in due { timer.resume(false) }
    }

    /// What keeps the time still now, said for a person; nil when nothing
    /// does. Arranges to hear when each busy operation finishes.
    ///
    /// The watched work is read a piece at a time, and an operation may finish
    /// between two reads, handing over to one read before it as waiting (unzip
    /// to install): nothing busy counts only once a second look reads the
    /// same. States only move forward, so it was then true at one instant.
    private func busyWork() -> String? {
        let (queues, sleepers, deliveries, waitedFor, conditions, watchesDispatchWork) = condition.withLock {
            (
                state.watched.queues, Array(state.waits.sleepers.values), state.network.deliveriesRunning,
                Array(state.waits.waitedFor.values.joined()), Array(state.waits.awaitedConditions.values), state.watched.watchesDispatchWork
            )
        }
        var look = WatchedWork(queues: queues, waitedFor: waitedFor, conditions: conditions)
        while true {
            if let busy = busy(
                in: look, sleepers: sleepers, deliveries: deliveries, watchesDispatchWork: watchesDispatchWork)
            {
                return arrangeToHear(busy)
            }
            let again = WatchedWork(queues: queues, waitedFor: waitedFor, conditions: conditions)
            if again == look { return nil }
            look = again
        }
    }

    /// What keeps the time still in `look`, and what to wait for to hear it end.
    private struct Busy {
        var what: [String] = []
        var toAwait: [Operation] = []
        var mainQueueBusy = false
    }

    private func busy(
        in look: WatchedWork, sleepers: [Sleeper], deliveries: Int, watchesDispatchWork: Bool
    ) -> Busy? {
        /// Work of `queue` (nil: of no queue) asleep on the clock.
        func waiting(_ queue: ObjectIdentifier?) -> Int {
            sleepers.filter { $0.queue == queue }.count
        }
        if look.aConditionHolds { return Busy(what: ["a wait whose condition holds, about to end"]) }
        var inWatchedQueues = Set<ObjectIdentifier>()
        var busy = Busy(what: deliveries > 0 ? ["the network: \(deliveries) deliveries running"] : [])
        if watchesDispatchWork {
            let counts = seam_count()
            let awake = counts.turns_elsewhere - counts.turns_elsewhere_parked
            if awake > 0 {
                busy.what.append(
                    "Dispatch: \(counted(awake, "block")) the story's turns started, running or queued, not asleep")
            }
        }
        for seen in look.queues {
            let queue = seen.queue
            let name = queue.name ?? "an operation queue"
            inWatchedQueues.formUnion(seen.unfinished.map { ObjectIdentifier($0.operation) })
            // A finished operation the queue still holds: it lets go in a moment, and what the app does next
            // may depend on it (step 9's resume starts a new loop only once `operationCount` is 0). The end of
            // the Dispatch block letting go is heard through the seam's signal (`watchDispatchWork`); without
            // the seam nothing says it, and the time does not wait for it.
            if watchesDispatchWork && seen.finishedHeld > 0 && queue !== OperationQueue.main {
                busy.what.append("\(name): letting go of a finished operation")
            }
            let running = seen.unfinished.filter(\.isExecuting)
            let asleep = waiting(ObjectIdentifier(queue))
            let freeSlots =
                seen.limit == OperationQueue.defaultMaxConcurrentOperationCount
                ? Int.max : max(0, seen.limit - running.count)
            let startable =
                seen.isSuspended ? [] : seen.unfinished.filter { !$0.isExecuting && $0.canStart }.prefix(freeSlots)
            if running.count > asleep || !startable.isEmpty {
                busy.what.append("\(name): \(running.count - asleep) running, \(startable.count) ready to start")
                if queue === OperationQueue.main {
                    busy.mainQueueBusy = true
                } else {
                    busy.toAwait += (running + startable).map(\.operation)
                }
            }
        }
        // Waited for, in a queue not watched yet: running, or free to start, it is busy.
        let unseen = look.waitedFor.filter { !inWatchedQueues.contains(ObjectIdentifier($0.operation)) }
        let unseenRunning = unseen.filter(\.isExecuting)
        let unseenStartable = unseen.filter { !$0.isExecuting && $0.canStart }
        if unseenRunning.count > waiting(nil) || !unseenStartable.isEmpty {
            busy.what.append(
                "\(counted(unseenRunning.count + unseenStartable.count, "operation")) waited for, in a queue the clock"
                    + " does not watch yet")
            busy.toAwait += (unseenRunning + unseenStartable).map(\.operation)
        }
        return busy.what.isEmpty ? nil : busy
    }

    /// Arranges to hear when what is busy ends, and says what it is.
    private func arrangeToHear(_ busy: Busy) -> String {
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

extension Operation {
    /// Whether a queue could start it now: every dependency done (a cancelled
    /// operation waits for none).
    fileprivate var canStart: Bool {
        isCancelled || dependencies.allSatisfy(\.isFinished)
    }
}

/// The work a story clock watches, as read once: an operation at a time.
private struct WatchedWork: Equatable {
    /// An operation not finished yet.
    struct Seen: Equatable {
        let operation: Operation
        let isExecuting: Bool
        let canStart: Bool

        init(_ operation: Operation) {
            self.operation = operation
            isExecuting = operation.isExecuting
            canStart = operation.canStart
        }

        static func == (one: Seen, other: Seen) -> Bool {
            one.operation === other.operation && one.isExecuting == other.isExecuting && one.canStart == other.canStart
        }
    }

    struct SeenQueue: Equatable {
        let queue: OperationQueue
        let unfinished: [Seen]
        /// Finished operations it still holds.
        let finishedHeld: Int
        let isSuspended: Bool
        let limit: Int

        init(_ queue: OperationQueue) {
            self.queue = queue
            let held = queue.operations
            let unfinished = held.filter { !$0.isFinished }
            self.unfinished = unfinished.map(Seen.init)
            finishedHeld = held.count - unfinished.count
            isSuspended = queue.isSuspended
            limit = queue.maxConcurrentOperationCount
        }

        static func == (one: SeenQueue, other: SeenQueue) -> Bool {
            one.queue === other.queue && one.unfinished == other.unfinished && one.finishedHeld == other.finishedHeld
                && one.isSuspended == other.isSuspended && one.limit == other.limit
        }
    }

    /// Whether a wait for a condition has it now: that wait's end is on its way.
    let aConditionHolds: Bool
    let queues: [SeenQueue]
    /// Operations waited for (`waitUntilFinished`) not finished yet.
    let waitedFor: [Seen]

    init(queues: [OperationQueue], waitedFor: [Operation], conditions: [@Sendable () -> Bool]) {
        aConditionHolds = conditions.contains { $0() }
        self.queues = queues.map(SeenQueue.init)
        self.waitedFor = waitedFor.filter { !$0.isFinished }.map(Seen.init)
    }
}

extension Duration {
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

/// Resumes a continuation once, whoever asks first.
private final class Once: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Bool, Never>?

    init(_ continuation: CheckedContinuation<Bool, Never>) {
        self.continuation = continuation
    }

    func resume(_ value: Bool) {
        lock.withLock { () -> CheckedContinuation<Bool, Never>? in
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
