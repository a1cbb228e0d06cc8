import Foundation
import Testing

/// A test's hang guard is loud even when Swift's cooperative pool cannot run
/// the test any more (two threads here, one per core; docs/performance.md,
/// "The cooperative pool"). A starved pool is played by an executor of the
/// test's own that holds the waiting task's jobs (`HeldExecutor`), so no other
/// test of the process waits for it.
@Suite struct CooperativePoolTests {
    /// The guard runs out while its task cannot resume: it says so at once,
    /// from its own thread, and the task fails once it runs again.
    @Test func aHangGuardSaysItRanOutWhileItsTaskCannotResume() async throws {
        let executor = HeldExecutor()
        defer { executor.close() }
        let said = Calls<(hang: String, taskHeld: Bool)>()
        let changes = Changes(hangGuard: 0.2) { hang in
            said.add((hang, executor.isHolding))
            executor.release()
        }
        let waiting = Task {
            try await withTaskExecutorPreference(executor) {
                // From here on nothing this task is handed runs: its wait's end neither.
                executor.hold()
                try await changes.wait("what never comes") { false }
            }
        }
        let outcome = await waiting.result
        #expect(throws: TestFailure.self) { try outcome.get() }
        let hangs = said.all
        #expect(hangs.map(\.hang) == ["hang guard: after 0.2 s still waiting for what never comes"])
        #expect(hangs.map(\.taskHeld) == [true], "the guard said nothing until its task ran again")
    }
}

/// A task executor that runs jobs on a thread of its own until `hold()`, then
/// keeps every job it is handed until `release()` (or, its own hang guard,
/// 10 s later), as a cooperative pool whose threads are all blocked keeps the
/// jobs queued on it. Its thread ends at `close()`.
final class HeldExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var holdEnds: Date?
    private var closed = false

    init() {
        Thread.detachNewThread { [self] in
            while let job = next() { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }

    var isHolding: Bool { condition.withLock { holdEnds != nil } }

    func hold() { condition.withLock { holdEnds = Date(timeIntervalSinceNow: 10) } }

    func release() { change { holdEnds = nil } }

    func close() { change { closed = true } }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        change { jobs.append(job) }
    }

    private func change(_ body: () -> Void) {
        condition.withLock {
            body()
            condition.broadcast()
        }
    }

    /// The next job to run, once one is queued and the executor does not hold; nil once closed.
    private func next() -> UnownedJob? {
        condition.withLock {
            while !closed && (jobs.isEmpty || holdEnds != nil) {
                if let holdEnds {
                    if !condition.wait(until: holdEnds) { self.holdEnds = nil }
                } else {
                    condition.wait()
                }
            }
            return closed ? nil : jobs.removeFirst()
        }
    }
}
