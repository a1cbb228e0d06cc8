import Foundation
import HarnessSync
import HostOS
import LessonKit

/// The other things the tutorials do with operations, each run and measured
/// on this machine: priorities, quality of service, waiting, `start()`,
/// several blocks in one `BlockOperation`, and the concurrency limit. These are
/// experiments about `Operation` itself, not app code: what each shows is a
/// measurement (an order, a thread, how many at once), so they are the tour's.
struct QueueExperiments: Sendable {
    let trace: OperationTrace
    /// What the operations sleep on, and what waits for them: the trace's story clock.
    var clock: SleepClock { trace.clock }

    // MARK: queuePriority

    /// The priorities in the order they are added.
    static let priorities: [(String, Operation.QueuePriority)] = [
        ("veryLow", .veryLow), ("normal", .normal), ("high", .high), ("low", .low), ("veryHigh", .veryHigh),
    ]

    /// Adds one operation per priority to a suspended queue that runs one at a
    /// time, then resumes it: the queue picks the highest priority among the
    /// ready operations each time. Returns the order they ran in.
    func priorityOrder() async -> [String] {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.isSuspended = true
        clock.watch(queue)
        let order = Locked<[String]>([], .seen)
        var operations: [Operation] = []
        for (name, priority) in Self.priorities {
            let operation = BlockOperation {
                self.trace.span(name, kind: "priority") { self.clock.sleep(seconds: 0.05) }
                order.withLock { $0.append(name) }
            }
            operation.queuePriority = priority
            operations.append(operation)
            queue.addOperation(operation)
        }
        clock.storyTurn { queue.isSuspended = false }
        _ = await clock.waitUntilFinished(operations)
        return order.current
    }

    // MARK: qualityOfService

    struct QualityOfServiceRace {
        let operationsPerQueue: Int
        let acceptedAndReadBack: Bool
        let userInteractiveMeanMs: Double
        let backgroundMeanMs: Double
        /// The `nice` value of the threads each queue's work ran on (Linux's
        /// CPU share knob: lower gets more).
        let userInteractiveNice: Set<Int>
        let backgroundNice: Set<Int>
    }

    /// Two queues, one `.userInteractive` and one `.background`, each given
    /// the same CPU-bound work at the same moment (added in turns, so neither
    /// is first in line). Measures when each queue's work finished on average,
    /// in wall time (the CPU's sharing is the machine's, not the story's), and
    /// how the threads that ran it were set up.
    func qualityOfServiceRace(operationsPerQueue: Int) async -> QualityOfServiceRace {
        let fast = OperationQueue()
        fast.qualityOfService = .userInteractive
        let slow = OperationQueue()
        slow.qualityOfService = .background
        clock.watch(fast, slow)
        let start = ContinuousClock.now
        let finishMs = Locked<[QualityOfService: [Double]]>([:], .seen)
        let niceValues = Locked<[QualityOfService: Set<Int>]>([:], .seen)
        var operations: [Operation] = []
        for index in 0..<(operationsPerQueue * 2) {
            let queue = index % 2 == 0 ? fast : slow
            let qos = queue.qualityOfService
            let operation = BlockOperation {
                Self.spin(Self.spinRounds)
                let took = (ContinuousClock.now - start).components
                let ms = Double(took.seconds) * 1000 + Double(took.attoseconds) / 1e15
                finishMs.withLock { $0[qos, default: []].append(ms) }
                if let nice = Self.niceOfCurrentThread() {
                    niceValues.withLock { _ = $0[qos, default: []].insert(nice) }
                }
            }
            operations.append(operation)
            clock.storyTurn { queue.addOperation(operation) }
        }
        _ = await clock.waitUntilFinished(operations)
        func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(max(values.count, 1)) }
        let finished = finishMs.current
        let nice = niceValues.current
        return QualityOfServiceRace(
            operationsPerQueue: operationsPerQueue,
            acceptedAndReadBack: fast.qualityOfService == .userInteractive && slow.qualityOfService == .background,
            userInteractiveMeanMs: mean(finished[.userInteractive] ?? []),
            backgroundMeanMs: mean(finished[.background] ?? []),
            userInteractiveNice: nice[.userInteractive] ?? [], backgroundNice: nice[.background] ?? [])
    }

    /// The calling thread's nice value (POSIX makes it a process's; on Linux each thread has its own).
    static func niceOfCurrentThread() -> Int? {
        HostThread.niceValue()
    }

    /// A fixed amount of arithmetic: the same work whoever gets the CPU.
    static func spin(_ rounds: Int) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for round in 0..<rounds {
            hash = (hash ^ UInt64(truncatingIfNeeded: round)) &* 0x100_0000_01b3
        }
        // Keep the optimiser from dropping the loop.
        if hash == 42 { print("") }
    }

    /// The work of one operation of the race: about a fifth of a second on
    /// one idle core of this machine in a debug build. Fixed, not measured
    /// at the start, so that every run races the same work.
    static let spinRounds = 20_000_000

    // MARK: completionBlock set after addOperation

    struct LateCompletion {
        let rounds: Int
        /// Of `rounds` short operations whose block was set right after
        /// `addOperation`, as tutorial 000 does: the blocks that ran.
        let ranWhenSetRightAfter: Int
        /// The same order, the calling thread held until the operation had
        /// left its queue: whether the block ran.
        let ranWhenSetAfterItLeft: Bool
    }

    /// A completion block is read once, when its operation finishes: one set
    /// later is never called. Set right after `addOperation`, it races the
    /// operation; held back until the operation has left its queue (as a
    /// calling thread that loses the CPU at that line would be), it loses.
    func completionBlockSetAfterAdding(rounds: Int = 1000) async -> LateCompletion {
        // The queue letting go is heard through the Dispatch seam: its work is the story's turns'.
        clock.watchDispatchWork()
        let queue = OperationQueue()
        let ran = Locked(0, .seen)
        clock.storyTurn {
            for _ in 0..<rounds {
                let operation = BlockOperation {}
                queue.addOperation(operation)
                operation.completionBlock = { ran.withLock { $0 += 1 } }
            }
        }
        // The queue lets go of an operation only after reading its completion
        // block (`isFinished` comes a little before that).
        await clock.waitUntilEmpty(queue)
        await completionBlocksAlreadyDueHaveRun(on: queue)

        let late = BlockOperation {}
        clock.storyTurn { queue.addOperation(late) }
        await clock.waitUntilEmpty(queue)
        let lateRan = Locked(false, .seen)
        late.completionBlock = { lateRan.withLock { $0 = true } }
        await completionBlocksAlreadyDueHaveRun(on: queue)
        return LateCompletion(
            rounds: rounds, ranWhenSetRightAfter: ran.current, ranWhenSetAfterItLeft: lateRan.current)
    }

    /// Returns once a completion block set the right way, before
    /// `addOperation`, has run: the blocks of operations that finished
    /// earlier were handed to the same global queue before it.
    private func completionBlocksAlreadyDueHaveRun(on queue: OperationQueue) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let marker = BlockOperation {}
            marker.completionBlock = { done.resume() }
            clock.storyTurn { queue.addOperation(marker) }
        }
    }

    // MARK: addOperations(_:waitUntilFinished:)

    struct Waiting {
        let blockedMs: Double
        let allFinishedWhenItReturned: Bool
        let waiterLane: String
        let maxAtOnce: Int
    }

    /// `addOperations(_:waitUntilFinished: true)` blocks the calling thread
    /// until they are all done — so never call it on the main queue. Here it
    /// is called on a background thread, and we measure how long it blocked.
    func addOperationsAndWait() async -> Waiting {
        let waiting = Locked<Waiting?>(nil, .seen)
        // The story waits on the clock while the thread it started waits for the operations.
        _ = await clock.wait { fire in
            Thread.detachNewThread {
                let queue = OperationQueue()
                self.clock.watch(queue)
                let operations = (1...3).map { number in
                    BlockOperation {
                        self.trace.span("op \(number)", kind: "operation") { self.clock.sleep(seconds: 0.3) }
                    }
                }
                let lane = self.trace.currentLane()
                let start = self.trace.now()
                self.trace.span("waiting") {
                    self.clock.storyTurn { queue.addOperations(operations, waitUntilFinished: true) }
                }
                let blockedMs = self.trace.now() - start
                let allFinished = operations.allSatisfy(\.isFinished)
                let work = self.trace.spans(since: start).filter { $0.name.hasPrefix("op ") }
                waiting.withLock {
                    $0 = Waiting(
                        blockedMs: blockedMs, allFinishedWhenItReturned: allFinished, waiterLane: lane,
                        maxAtOnce: OperationTrace.maxOverlap(work))
                }
                fire()
            }
        }
        return waiting.current ?? Waiting(blockedMs: 0, allFinishedWhenItReturned: false, waiterLane: "?", maxAtOnce: 0)
    }

    // MARK: start()

    struct DirectStart {
        let callerLane: String
        let operationLane: String
        let ranOnCallingThread: Bool
        let finishedWhenStartReturned: Bool
    }

    /// `start()` called directly, without a queue: the operation runs right
    /// there, on the calling thread, and `start()` returns when it is done.
    func startDirectly() -> DirectStart {
        let callerThread = HostThread.currentID
        let ranOn = Locked<(thread: UInt, lane: String)?>(nil, .seen)
        let operation = BlockOperation {
            ranOn.withLock { $0 = (HostThread.currentID, self.trace.currentLane()) }
            self.trace.span("started directly") { self.clock.sleep(seconds: 0.1) }
        }
        // The calling thread waits on the clock through the operation it runs: the story lets the time go meanwhile.
        clock.release()
        operation.start()
        clock.hold()
        let finishedWhenStartReturned = operation.isFinished
        return DirectStart(
            callerLane: trace.currentLane(), operationLane: ranOn.current?.lane ?? "nowhere",
            ranOnCallingThread: ranOn.current.map { callerThread == $0.thread } ?? false,
            finishedWhenStartReturned: finishedWhenStartReturned)
    }

    // MARK: BlockOperation with several blocks

    struct SeveralBlocks {
        let blocks: Int
        let blockMs: Double
        let threads: Int
        let maxAtOnce: Int
        let totalMs: Double
    }

    /// One `BlockOperation`, four blocks (one given at creation, three with
    /// `addExecutionBlock`), each sleeping 0.3 story seconds. Apple's
    /// Foundation runs the blocks concurrently; we measure what this one does.
    func severalBlocks(count: Int = 4) async -> SeveralBlocks {
        let blockSeconds = 0.3
        let operation = BlockOperation {
            self.trace.span("block 1", kind: "execution block") { self.clock.sleep(seconds: blockSeconds) }
        }
        for number in 2...count {
            operation.addExecutionBlock {
                self.trace.span("block \(number)", kind: "execution block") { self.clock.sleep(seconds: blockSeconds) }
            }
        }
        let start = trace.now()
        let queue = OperationQueue()
        clock.watch(queue)
        clock.storyTurn { queue.addOperation(operation) }
        _ = await clock.waitUntilFinished([operation])
        let blocks = trace.spans(since: start).filter { $0.name.hasPrefix("block ") }
        return SeveralBlocks(
            blocks: blocks.count, blockMs: blockSeconds * 1000, threads: Set(blocks.map(\.lane)).count,
            maxAtOnce: OperationTrace.maxOverlap(blocks),
            totalMs: (blocks.map(\.endMs).max() ?? start) - (blocks.map(\.startMs).min() ?? start))
    }

    // MARK: maxConcurrentOperationCount

    struct Limit {
        let limit: Int?
        let maxAtOnce: Int
        let totalMs: Double
    }

    /// Six operations of 0.3 story seconds each on a queue with `limit`
    /// (nil: the default, no limit). Returns how many ran at once at most.
    func concurrencyLimit(_ limit: Int?, operations count: Int = 6) async -> Limit {
        let queue = OperationQueue()
        if let limit { queue.maxConcurrentOperationCount = limit }
        clock.watch(queue)
        let name = "limit \(limit.map(String.init) ?? "default")"
        let start = trace.now()
        let operations = (0..<count).map { _ in
            BlockOperation { self.trace.span(name, kind: "limit") { self.clock.sleep(seconds: 0.3) } }
        }
        clock.storyTurn { operations.forEach(queue.addOperation) }
        _ = await clock.waitUntilFinished(operations)
        let spans = trace.spans(since: start).filter { $0.name == name }
        return Limit(limit: limit, maxAtOnce: OperationTrace.maxOverlap(spans), totalMs: trace.now() - start)
    }
}
