import Foundation
import LessonKit
import SlowNetwork
import TableKit
import TerminalKit
import Synchronization
import Testing

@testable import DependencyTour
@preconcurrency @testable import Lesson08Dependencies

#if canImport(Glibc)
    import Glibc
#endif

/// Step 8: the software update's order, the dependency cycle, and the queue
/// features the lesson states as facts about this machine. The update is
/// watched as the tour watches it: through the lines its steps log (with the
/// thread each was written on) and its status label. Everything plays on a
/// story clock of its own, so the figures are exact.
@Suite struct Lesson08Tests {
    static let seeds: [UInt64] = [1, 2, 3, 4, 5, 6, 7, 8]

    static func conditions(seed: UInt64) -> NetworkConditions {
        var conditions = NetworkConditions()
        conditions.latency = 0.5
        conditions.jitter = 0.5
        conditions.seed = seed
        return conditions
    }

    /// Runs `body` alone in the process on a story clock that watches the
    /// main queue (where install runs), and ends the clock after.
    static func onStoryClock<T>(_ body: (OperationTrace) async -> T) async -> T {
        await ExclusiveRun.run { _ in
            let clock = SleepClock()
            clock.watch(OperationQueue.main)
            defer { clock.shutDown() }
            return await body(OperationTrace(clock: clock))
        }
    }

    /// Step 8's update in a world the harness watches.
    static func update(seed: UInt64, trace: OperationTrace) -> (update: SoftwareUpdate, world: UpdateWorld) {
        let world = UpdateWorld(conditions: conditions(seed: seed), trace: trace)
        let update = SoftwareUpdate(
            network: world.network, log: world.log, clock: world.clock, unzipSeconds: world.unzipSeconds)
        return (update, world)
    }

    /// Plays the chain alone in the process (its last step is on the shared
    /// main queue) and returns the steps in the order they finished, and what
    /// the status label said.
    static func finishedSteps(
        seed: UInt64, withDependencies: Bool
    ) async -> (steps: [UpdateWorld.FinishedStep], status: String?) {
        await onStoryClock { trace in
            let (update, world) = Self.update(seed: seed, trace: trace)
            let operations = update.start(withDependencies: withDependencies)
            let finished = await trace.clock.waitUntilFinished(operations, atMost: 60)
            #expect(finished, "the chain did not finish within 60 story seconds")
            return (world.finishedSteps, update.statusLabel.text)
        }
    }

    // MARK: the chain

    @Test(arguments: seeds)
    func withDependenciesTheUpdateFinishesDownloadUnzipInstallAcrossTwoQueues(seed: UInt64) async {
        let (steps, status) = await Self.finishedSteps(seed: seed, withDependencies: true)
        #expect(steps.map(\.name) == ["download", "unzip", "install"])
        #expect(steps.allSatisfy { !$0.foundNothing }, "each step found what the one before it left")
        #expect(status == "upgrade complete: 13 files installed")
        // The two queues: install on the main queue, the others on the background queue's threads.
        #expect(steps.last?.lane == "main queue")
        #expect(steps.dropLast().allSatisfy { $0.lane != "main queue" })
    }

    @Test func withoutDependenciesTheOrderDiffersForSomeSeed() async {
        var outOfOrder: [UInt64] = []
        for seed in Self.seeds {
            let (steps, status) = await Self.finishedSteps(seed: seed, withDependencies: false)
            #expect(steps.count == 3)
            if steps.map(\.name) != ["download", "unzip", "install"] {
                outOfOrder.append(seed)
                // The consequence, not just the order: install found nothing to install.
                #expect(steps.first { $0.name == "install" }?.foundNothing == true)
                #expect(status == "upgrade failed: nothing to install")
            }
        }
        #expect(!outOfOrder.isEmpty, "every seed happened to finish in order without dependencies")
    }

    /// Seed 1 as the tour shows it, to the millisecond: the download takes
    /// 528 ms, the unzip 773 ms after it (1301.6 in all), and install runs at
    /// the instant it ends.
    @Test func theChainsTimesAreStoryTimesExactlyAsTheSeedDrawsThem() async {
        let (steps, _) = await Self.finishedSteps(seed: 1, withDependencies: true)
        #expect(steps.map { Int($0.ms.rounded()) } == [528, 1302, 1302])
    }

    /// The clock reads the queues it watches one after another. An operation
    /// that finishes between two reads, in a queue read after the one where
    /// its dependent waits, must not let the time jump past the hand-over:
    /// install once ran at 60 s in a loaded run of the whole suite, unzip
    /// having finished while the clock read the main queue, then the update
    /// queue. Here a third queue, read between the two, makes that moment.
    @Test func anOperationFinishingAsTheClockReadsItsQueuesHandsOverAtOnce() async {
        let (finished, ranAt) = await ExclusiveRun.run { _ in
            let clock = SleepClock()
            defer { clock.shutDown() }
            let (waiting, between, first) = (OperationQueue(), OperationQueue(), OperationQueue())
            between.isSuspended = true
            first.isSuspended = true
            clock.watch(waiting, between, first)  // the order the clock reads them in
            let firstStep = BlockOperation {}
            let ranAt = StoryInstant()
            let gate = DispatchSemaphore(value: 0)
            let then = BlockOperation {
                gate.wait()
                ranAt.milliseconds = clock.milliseconds
            }
            then.addDependency(firstStep)
            let reader = ReadByTheClock(
                firstRead: {
                    // The first step runs and its queue lets go of it, all while the clock reads this queue.
                    first.isSuspended = false
                    first.waitUntilAllOperationsAreFinished()
                    while first.operationCount > 0 { sched_yield() }
                },
                // Read again: the clock is looking again before it moves the time; `then` may run now.
                secondRead: { gate.signal() })
            between.addOperation(reader)
            waiting.addOperation(then)
            first.addOperation(firstStep)
            reader.arm()
            let finished = await clock.waitUntilFinished([then], atMost: 60)
            // Whatever the clock did, let `then` finish and `between` empty.
            gate.signal()
            reader.cancel()
            between.isSuspended = false
            _ = await clock.waitUntilFinished([then, reader])
            return (finished, ranAt.milliseconds)
        }
        #expect(finished, "the time ran out before the operation waiting for the first one ran")
        #expect(ranAt == 0, "it ran at \(ranAt.map { "\($0) ms" } ?? "no time"), not at the instant the first finished")
    }

    @Test func theUnzipTimeIsDrawnFromTheSeedSoARaceReplays() {
        let clock = SleepClock()
        defer { clock.shutDown() }
        let trace = OperationTrace(clock: clock)
        let first = UpdateWorld(conditions: Self.conditions(seed: 3), trace: trace).unzipSeconds
        let again = UpdateWorld(conditions: Self.conditions(seed: 3), trace: trace).unzipSeconds
        let other = UpdateWorld(conditions: Self.conditions(seed: 4), trace: trace).unzipSeconds
        #expect(first == again)
        #expect(first != other)
    }

    @Test func aCancelledDependencyDoesNotStopTheOperationThatDependsOnIt() async {
        let steps = await Self.onStoryClock { trace in
            let (update, world) = Self.update(seed: 1, trace: trace)
            let operations = update.startWithCancelledDownload()
            _ = await trace.clock.waitUntilFinished(operations)
            return world.finishedSteps
        }
        #expect(steps.map(\.name) == ["unzip", "install"])
        #expect(steps.first?.line == "unzip: nothing to unzip", "unzip ran with no package")
    }

    @Test func completionBlocksDoNotRunOnTheMainQueueEvenForAMainQueueOperation() async {
        let lanes = await Self.onStoryClock { trace in
            let (update, world) = Self.update(seed: 2, trace: trace)
            let operations = update.start(withDependencies: true)
            _ = await trace.clock.waitUntilFinished(operations)
            // A completion block runs after its operation is finished: wait for all three lines.
            await world.completionBlocksLogged()
            return world.completionBlockLanes
        }
        #expect(lanes.count == 3)
        #expect(!lanes.values.contains("main queue"))
    }

    // MARK: the cycle

    @Test func theCycleCheckFindsABCAAndNamesIt() {
        let (a, b, c) = (BlockOperation {}, BlockOperation {}, BlockOperation {})
        a.name = "A"
        b.name = "B"
        c.name = "C"
        b.addDependency(a)
        c.addDependency(b)
        a.addDependency(c)
        #expect(DependencyCheck.cycle(among: [a, b, c])?.map(\.name) == ["A", "B", "C", "A"])
        // Listed in another order, it is the same cycle, named from the first one listed.
        #expect(DependencyCheck.cycle(among: [c, a, b])?.map(\.name) == ["C", "A", "B", "C"])
        #expect {
            try DependencyCheck.checkForCycles([a, b, c])
        } throws: { error in
            (error as? DependencyCycleError)?.description.contains("A → B → C → A") == true
        }
    }

    @Test func theCycleCheckFindsNothingInADiamondOrAChain() {
        let (top, left, right, bottom) = (BlockOperation {}, BlockOperation {}, BlockOperation {}, BlockOperation {})
        left.addDependency(top)
        right.addDependency(top)
        bottom.addDependency(left)
        bottom.addDependency(right)
        #expect(DependencyCheck.cycle(among: [bottom, top, left, right]) == nil)
        #expect(throws: Never.self) { try DependencyCheck.checkForCycles([top, left, right, bottom]) }
    }

    @Test func theTutorialsCycleIsRefusedBeforeEitherQueueSeesAnOperation() throws {
        let clock = SleepClock()
        defer { clock.shutDown() }
        let (update, _) = Self.update(seed: 1, trace: OperationTrace(clock: clock))
        #expect {
            _ = try update.startCheckingForCycles(withCycle: true)
        } throws: { error in
            (error as? DependencyCycleError)?.names == ["download", "unzip", "install", "download"]
        }
        #expect(update.backgroundQueue.operationCount == 0)
    }

    @Test func aQueueHoldingACycleFinishesNothingWithinTheTimeoutUntilItIsCancelled() async {
        let (finishedInTime, finished, ready, released, ran) = await Self.onStoryClock { trace in
            let (update, world) = Self.update(seed: 1, trace: trace)
            let operations = update.startWithUncheckedCycle()
            let finishedInTime = await trace.clock.waitUntilFinished(operations, atMost: 2)
            let finished = operations.filter(\.isFinished).count
            let ready = operations.filter(\.isReady).count
            // Cancelling lets them go: a cancelled operation ignores its dependencies.
            // Both queues are held while cancelling: the first one cancelled
            // finishes at once, and the next one in the cycle, its dependency
            // gone, could otherwise start its work before the loop reaches it.
            OperationQueue.main.isSuspended = true
            update.backgroundQueue.isSuspended = true
            for operation in operations { operation.cancel() }
            update.backgroundQueue.isSuspended = false
            OperationQueue.main.isSuspended = false
            let released = await trace.clock.waitUntilFinished(operations)
            return (finishedInTime, finished, ready, released, world.finishedSteps.count)
        }
        #expect(!finishedInTime)
        #expect(finished == 0)
        #expect(ready == 0, "no operation in a cycle is ever ready")
        #expect(released)
        #expect(ran == 0, "cancelled before they started, none ran its work")
    }

    // MARK: the queue's features, as the tour's experiments measure them

    /// The tour's experiments, alone in the process on a story clock of their own.
    static func experiment<T>(_ body: (QueueExperiments) async -> T) async -> T {
        await onStoryClock { trace in await body(QueueExperiments(trace: trace)) }
    }

    @Test func prioritiesOrderASuspendedSingleLaneQueueAsDocumented() async {
        let order = await Self.experiment { await $0.priorityOrder() }
        #expect(order == ["veryHigh", "high", "normal", "low", "veryLow"])
    }

    /// Tutorial 000 sets a completion block after `addOperation`. The block is
    /// read when the operation finishes, so one set after that never runs.
    @Test func aCompletionBlockSetAfterItsOperationLeftTheQueueNeverRuns() async {
        let late = await Self.experiment { await $0.completionBlockSetAfterAdding(rounds: 10) }
        #expect(!late.ranWhenSetAfterItLeft)
    }

    /// A cancelled operation is ready at once, but only starting it finishes
    /// it. A cancelled dependency that no queue holds never starts, so what
    /// depends on it waits for ever; `start()` lets it go.
    @Test func aCancelledDependencyThatNoQueueStartsHoldsItsDependentBack() async {
        let download = BlockOperation {}
        let unzip = BlockOperation {}
        unzip.addDependency(download)
        download.cancel()
        #expect(download.isReady)
        #expect(!download.isFinished)
        let clock = SleepClock()
        defer { clock.shutDown() }
        let queue = OperationQueue()
        clock.watch(queue)
        queue.addOperation(unzip)
        #expect(!(await clock.waitUntilFinished([unzip], atMost: 0.3)))
        #expect(!unzip.isReady)
        download.start()
        #expect(download.isFinished)
        #expect(await clock.waitUntilFinished([unzip]))
    }

    @Test func startCalledDirectlyRunsOnTheCallingThreadAndReturnsWhenDone() async {
        let start = await Self.experiment { $0.startDirectly() }
        #expect(start.ranOnCallingThread)
        #expect(start.finishedWhenStartReturned)
    }

    /// Played by the step's own executable (`--part start-unready`), not a
    /// Swift Testing exit test: an exit test's child waiter stays in this
    /// process and, in the TSan leg, spun on another test's crashed child,
    /// which was never reaped (the run hung until CI's time limit).
    @Test func startOnAnOperationThatIsNotReadyIsAFatalError() async throws {
        let run = try await LessonProcess.run("Lesson08Dependencies", ["--part", "start-unready", "--speed", "10"])
        #expect(run.crashed)
        #expect(run.errors.contains("receiver is not yet ready to execute"), "\(run.errors.prefix(500))")
        #expect(run.output.contains("start() on an operation that is not ready"))
    }

    /// At 80 columns (issue 26): every line fits, part 2's lanes are drawn
    /// as they are, never folded, so install's bracket ends in the same
    /// column as the time axis, at the end of the story; and the parts that
    /// explain (2, 7, 11) are paragraphs, not lines broken by hand.
    @Test func atEightyColumnsTheLanesAreScaledToTheWidthAndTheParagraphsAreWhole() async throws {
        let run = try await LessonProcess.run(
            "Lesson08Dependencies", ["--plain", "--part", "chain,qos,blocks"], environment: ["COLUMNS": "80"])
        let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(
            lines.allSatisfy { TerminalText.width(of: $0) <= 80 }, "\(lines.filter { TerminalText.width(of: $0) > 80 })"
        )
        let part2 = try #require(lines.firstIndex { $0.contains("2. With dependencies") })
        let mainLane = try #require(lines[part2...].first { $0.hasPrefix("    main queue |") })
        let axis = try #require(lines[part2...].first { $0.hasSuffix(" ms") && $0.contains(" 0 ") })
        #expect(mainLane.hasSuffix("]"))
        #expect(TerminalText.width(of: mainLane) == TerminalText.width(of: axis), "install ends where the axis does")
        // A paragraph broken by hand leaves a line that starts mid-sentence, indented.
        for start in ["  for an operation on the background queue", "  threads compete for the CPU", "  concurrently"] {
            #expect(!lines.contains { $0.hasPrefix(start) }, "a hard line break before \"\(start)\"")
        }
    }

    @Test func addOperationsWaitingBlocksTheCallerUntilAllAreFinished() async {
        let waiting = await Self.experiment { await $0.addOperationsAndWait() }
        #expect(waiting.allFinishedWhenItReturned)
        // Three operations of 300 story ms, all at once once the pool has a thread for each.
        #expect(waiting.blockedMs == 300)
        #expect(waiting.maxAtOnce == 3)
    }

    /// On the story clock a limit is reached exactly: the clock waits for
    /// every operation the limit lets run, however slowly the pool grows.
    @Test(arguments: [1, 2])
    func aConcurrencyLimitIsReachedAndNeverExceeded(limit: Int) async {
        let result = await Self.experiment { await $0.concurrencyLimit(limit) }
        #expect(result.maxAtOnce == limit)
        #expect(result.totalMs == 1800 / Double(limit))
    }

    /// The tour reads each thread's nice value with `getpriority` for "this
    /// process": on Linux that answers for the calling thread alone. A thread
    /// that lowers its own priority reads its new value; this one, meanwhile,
    /// still reads its own.
    @Test func theNiceValueReadIsTheCallingThreadsOwn() async {
        let mine = QueueExperiments.niceOfCurrentThread()
        let raised = await withCheckedContinuation { done in
            Thread.detachNewThread {
                let before = QueueExperiments.niceOfCurrentThread() ?? 0
                setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Int32(before + 3))
                done.resume(returning: QueueExperiments.niceOfCurrentThread().map { $0 - before })
            }
        }
        #expect(raised == 3)
        #expect(mine != nil)
        #expect(QueueExperiments.niceOfCurrentThread() == mine)
    }

    #if os(Linux)
        /// Apple's Foundation runs the blocks of one BlockOperation
        /// concurrently; swift-corelibs-foundation runs them one after
        /// another on one thread. If this starts failing, the lesson text is
        /// out of date.
        @Test func onLinuxTheBlocksOfOneBlockOperationRunOneAfterAnother() async {
            let blocks = await Self.experiment { await $0.severalBlocks(count: 4) }
            #expect(blocks.blocks == 4)
            #expect(blocks.maxAtOnce == 1)
            #expect(blocks.threads == 1)
            #expect(blocks.totalMs == 1200)
        }
    #endif
}

/// A story time written on one thread and read on another.
private final class StoryInstant: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Double?
    var milliseconds: Double? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

/// An operation that never runs (its queue is suspended) and does something
/// the first and second times its state is read once armed: after `arm`,
/// only the story clock reads it, so that is while the clock reads its queue.
private final class ReadByTheClock: Operation, @unchecked Sendable {
    private let reads = Mutex<(armed: Bool, count: Int)>((false, 0))
    private let firstRead: @Sendable () -> Void
    private let secondRead: @Sendable () -> Void

    init(firstRead: @escaping @Sendable () -> Void, secondRead: @escaping @Sendable () -> Void) {
        self.firstRead = firstRead
        self.secondRead = secondRead
    }

    func arm() { reads.withLock { $0.armed = true } }

    override var isFinished: Bool {
        let count = reads.withLock { reads -> Int in
            guard reads.armed else { return 0 }
            reads.count += 1
            return reads.count
        }
        if count == 1 { firstRead() } else if count == 2 { secondRead() }
        return super.isFinished
    }
}
