import Foundation
import LessonKit
import SlowNetwork
import Testing

@preconcurrency @testable import Lesson08Dependencies

#if canImport(Glibc)
    import Glibc
#endif

/// Step 8: the software update's order, the dependency cycle, and the queue
/// features the lesson states as facts about this machine.
@Suite struct Lesson08Tests {
    static let seeds: [UInt64] = [1, 2, 3, 4, 5, 6, 7, 8]
    static let speed = 20.0

    static func conditions(seed: UInt64) -> NetworkConditions {
        var conditions = NetworkConditions()
        conditions.latency = 0.5
        conditions.jitter = 0.5
        conditions.seed = seed
        conditions.timeScale = speed
        return conditions
    }

    /// Plays the chain alone in the process (its last step is on the shared
    /// main queue) and returns the steps in the order they finished.
    static func finishedSteps(seed: UInt64, withDependencies: Bool) async -> [SoftwareUpdate.Step] {
        await ExclusiveRun.run { _ in
            let update = SoftwareUpdate(conditions: conditions(seed: seed), trace: OperationTrace())
            let operations = update.start(withDependencies: withDependencies)
            let finished = await OperationWaiter.waitUntilFinished(operations, timeoutSeconds: 30)
            #expect(finished, "the chain did not finish within 30 s")
            return update.finishedSteps
        }
    }

    // MARK: the chain

    @Test(arguments: seeds)
    func withDependenciesTheUpdateFinishesDownloadUnzipInstallAcrossTwoQueues(seed: UInt64) async {
        let steps = await Self.finishedSteps(seed: seed, withDependencies: true)
        #expect(steps.map(\.name) == ["download", "unzip", "install"])
        #expect(steps.allSatisfy { $0.hadInput }, "each step found what the one before it left")
        // The two queues: install on the main queue, the others on the background queue's threads.
        #expect(steps.last?.lane == "main queue")
        #expect(steps.dropLast().allSatisfy { $0.lane != "main queue" })
    }

    @Test func withoutDependenciesTheOrderDiffersForSomeSeed() async {
        var outOfOrder: [UInt64] = []
        for seed in Self.seeds {
            let steps = await Self.finishedSteps(seed: seed, withDependencies: false)
            #expect(steps.count == 3)
            if steps.map(\.name) != ["download", "unzip", "install"] {
                outOfOrder.append(seed)
                // The consequence, not just the order: install found nothing to install.
                #expect(steps.first { $0.name == "install" }?.hadInput == false)
            }
        }
        #expect(!outOfOrder.isEmpty, "every seed happened to finish in order without dependencies")
    }

    @Test func theUnzipTimeIsDrawnFromTheSeedSoARaceReplays() {
        let trace = OperationTrace()
        let first = SoftwareUpdate(conditions: Self.conditions(seed: 3), trace: trace).unzipSeconds
        let again = SoftwareUpdate(conditions: Self.conditions(seed: 3), trace: trace).unzipSeconds
        let other = SoftwareUpdate(conditions: Self.conditions(seed: 4), trace: trace).unzipSeconds
        #expect(first == again)
        #expect(first != other)
    }

    @Test func aCancelledDependencyDoesNotStopTheOperationThatDependsOnIt() async {
        let steps = await ExclusiveRun.run { _ in
            let update = SoftwareUpdate(conditions: Self.conditions(seed: 1), trace: OperationTrace())
            let operations = update.startWithCancelledDownload()
            _ = await OperationWaiter.waitUntilFinished(operations, timeoutSeconds: 30)
            return update.finishedSteps
        }
        #expect(steps.map(\.name) == ["unzip", "install"])
        #expect(steps.first?.hadInput == false, "unzip ran with no package")
    }

    @Test func completionBlocksDoNotRunOnTheMainQueueEvenForAMainQueueOperation() async {
        let lanes = await ExclusiveRun.run { _ in
            let update = SoftwareUpdate(conditions: Self.conditions(seed: 2), trace: OperationTrace())
            let operations = update.start(withDependencies: true)
            _ = await OperationWaiter.waitUntilFinished(operations, timeoutSeconds: 30)
            // A completion block runs after its operation is finished: wait for all three.
            await update.completionBlocksHaveRun()
            return update.completionBlockLanes
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
        let update = SoftwareUpdate(conditions: Self.conditions(seed: 1), trace: OperationTrace())
        #expect {
            _ = try update.startCheckingForCycles(withCycle: true)
        } throws: { error in
            (error as? DependencyCycleError)?.names == ["download", "unzip", "install", "download"]
        }
        #expect(update.backgroundQueue.operationCount == 0)
    }

    @Test func aQueueHoldingACycleFinishesNothingWithinTheTimeoutUntilItIsCancelled() async {
        let (finishedInTime, finished, ready, released, ran) = await ExclusiveRun.run { _ in
            let update = SoftwareUpdate(conditions: Self.conditions(seed: 1), trace: OperationTrace())
            let operations = update.startWithUncheckedCycle()
            let finishedInTime = await OperationWaiter.waitUntilFinished(operations, timeoutSeconds: 0.5)
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
            let released = await OperationWaiter.waitUntilFinished(operations, timeoutSeconds: 30)
            return (finishedInTime, finished, ready, released, update.finishedSteps.count)
        }
        #expect(!finishedInTime)
        #expect(finished == 0)
        #expect(ready == 0, "no operation in a cycle is ever ready")
        #expect(released)
        #expect(ran == 0, "cancelled before they started, none ran its work")
    }

    // MARK: the queue's features

    static let features = QueueFeatures(trace: OperationTrace(), wall: { $0 / speed })

    @Test func prioritiesOrderASuspendedSingleLaneQueueAsDocumented() async {
        let order = await Self.features.priorityOrder()
        #expect(order == ["veryHigh", "high", "normal", "low", "veryLow"])
    }

    @Test func startCalledDirectlyRunsOnTheCallingThreadAndReturnsWhenDone() {
        let start = Self.features.startDirectly()
        #expect(start.ranOnCallingThread)
        #expect(start.finishedWhenStartReturned)
    }

    @Test func startOnAnOperationThatIsNotReadyIsAFatalError() async {
        await #expect(processExitsWith: .failure) {
            let first = BlockOperation {}
            let second = BlockOperation {}
            second.addDependency(first)
            second.start()
        }
    }

    @Test func addOperationsWaitingBlocksTheCallerUntilAllAreFinished() async {
        let waiting = await Self.features.addOperationsAndWait()
        #expect(waiting.allFinishedWhenItReturned)
        // Three operations of 15 ms: the wait lasted at least one of them.
        #expect(waiting.blockedMs >= 15)
    }

    @Test(arguments: [1, 2])
    func aConcurrencyLimitIsNeverExceeded(limit: Int) async {
        let result = await Self.features.concurrencyLimit(limit)
        #expect(result.maxAtOnce >= 1)
        #expect(result.maxAtOnce <= limit)
    }

    #if os(Linux)
        /// Apple's Foundation runs the blocks of one BlockOperation
        /// concurrently; swift-corelibs-foundation runs them one after
        /// another on one thread. If this starts failing, the lesson text is
        /// out of date.
        @Test func onLinuxTheBlocksOfOneBlockOperationRunOneAfterAnother() async {
            let blocks = await Self.features.severalBlocks(count: 4)
            #expect(blocks.blocks == 4)
            #expect(blocks.maxAtOnce == 1)
            #expect(blocks.threads == 1)
        }
    #endif
}

/// Waits, without blocking a thread, until `condition` holds; false if it
/// still does not after `timeout` seconds. For conditions, never for time.
func eventually(timeout: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
