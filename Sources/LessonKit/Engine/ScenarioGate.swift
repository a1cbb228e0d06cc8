import Dispatch
import DispatchSeam
import HarnessSync

/// One scenario at a time in a process.
///
/// Every scenario shares `OperationQueue.main`: a step that blocks it (step 1
/// does, on purpose) would show up as stalls in any scenario running beside it,
/// and the instruments are per scenario only if scenarios do not overlap. Tests
/// may run in parallel; their scenarios wait their turn here.
///
/// A table run's turn is handed over on the main queue, where runs play: the
/// next run starts as the one before ends, and not once a thread of Swift's
/// cooperative pool (one per core, which the tests of a whole suite starting at
/// once may all hold) has resumed the task that asked for the run before.
/// Work that plays in a task of its own (`ExclusiveRun`, `holding`) holds the
/// gate from its task's resuming to its `leave`, and that task runs on the
/// gate's own queue (`HolderExecutor`), never waiting for a thread of the pool.
final class ScenarioGate: Sendable {
    static let shared = ScenarioGate()

    /// True in a task that holds the gate through `holding`: the runs it plays
    /// meanwhile are alone already, and go straight in.
    @TaskLocal static var isHeld = false

    /// Who waits for the gate, in the order they asked.
    private enum Waiter {
        /// A table run, started on the main queue when its turn comes; it leaves through `runEnded`.
        case run(@Sendable () -> Void)
        case task(CheckedContinuation<Void, Never>)
    }

    private struct State {
        var busy = false
        var waiting: [Waiter] = []
    }

    private let state = Locked(State())

    /// Waits until the calling task holds the gate (at once inside `holding`).
    func enter() async {
        if Self.isHeld { return }
        await withCheckedContinuation { continuation in
            if take(orWait: .task(continuation)) { continuation.resume() }
        }
    }

    /// Lets go of the gate `enter` gave the calling task.
    func leave() {
        if Self.isHeld { return }
        handOver()
    }

    /// Starts `run` on the main queue once the gate is its own; the run calls
    /// `runEnded` as it hands its result back.
    func startOnMainQueue(_ run: @escaping @Sendable () -> Void) {
        if take(orWait: .run(run)) { DispatchQueue.main.async(execute: run) }
    }

    /// The run `startOnMainQueue` started has ended: the gate goes to the next in line.
    func runEnded() { handOver() }

    /// Takes the gate if it is free (true), or puts `waiter` in line.
    private func take(orWait waiter: Waiter) -> Bool {
        state.withLock { state in
            guard state.busy else {
                state.busy = true
                return true
            }
            state.waiting.append(waiter)
            return false
        }
    }

    private func handOver() {
        let next = state.withLock { state -> Waiter? in
            guard !state.waiting.isEmpty else {
                state.busy = false
                return nil
            }
            return state.waiting.removeFirst()
        }
        switch next {
        case .run(let run): DispatchQueue.main.async(execute: run)
        case .task(let continuation): continuation.resume()
        case nil: break
        }
    }

    /// Runs `body` holding the gate, so that what it starts beside its runs
    /// (threads that keep the cores busy, tasks that crowd the main queue)
    /// starts once they are next, and not while they wait behind other tests'
    /// runs, which it would slow.
    static func holding<Value, Failure>(_ body: () async throws(Failure) -> Value) async throws(Failure) -> Value {
        if isHeld { return try await body() }
        return try await asHolder { () async throws(Failure) -> Value in
            await shared.enter()
            defer { shared.leave() }
            // `withValue` rethrows untyped errors: the body's own comes back through a `Result`.
            let outcome = await $isHeld.withValue(true) { () async -> Result<Value, Failure> in
                do throws(Failure) { return .success(try await body()) } catch { return .failure(error) }
            }
            return try outcome.get()
        }
    }

    /// Runs `body`, which takes the gate, on the holder's queue: from its turn at the gate to its `leave`, the
    /// holder's task never waits for a thread of Swift's cooperative pool. That pool has a thread per core, and
    /// the tests of a whole suite, started at once, may hold them all: a holder resumed there waited 25.6 s for
    /// one at the start of a `swift test`, with the gate held and every other run waiting behind it.
    static func asHolder<Value, Failure>(_ body: () async throws(Failure) -> Value) async throws(Failure) -> Value {
        try await withTaskExecutorPreference(HolderExecutor.shared, operation: body)
    }

    /// The holder's queue: a serial queue of its own, whose blocks libdispatch runs on its overcommitting pool
    /// (a thread when one is asked for), at the default priority the pool's threads have.
    private final class HolderExecutor: TaskExecutor {
        static let shared = HolderExecutor()
        private let queue = DispatchQueue(label: "scenario gate holder", qos: .default)

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let executor = asUnownedTaskExecutor()
            // The holder's turn is the harness's work, whatever thread resumed it (a run's `done`, in the app's
            // turn): the seam must not count it as the run's.
            let saved = seam_leave_run()
            queue.async { job.runSynchronously(on: executor) }
            seam_restore(saved)
        }
    }
}
