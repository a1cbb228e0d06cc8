import DispatchSeam
import Foundation

/// Whether the app has anything left to do before the story's next event:
/// the question the story clock asks before it moves on. This file is the
/// whole definition: the app is idle when no activity source has work in
/// hand, and it has stopped when no source has any work left at all.
///
/// Each source watches one kind of work through a seam the harness owns
/// (the network, the story clock, the Dispatch seam), never through the
/// app's objects, so it holds for code that keeps its queues anywhere. A new
/// kind of work (Swift tasks, step 11) is one more source in `sources`.
protocol ActivitySource {
    /// What of this kind keeps the app busy now, in words (nil: nothing).
    /// Looking has no side effect.
    func busy(_ moment: ActivityMoment) -> String?
    /// Whether any work of this kind is left, busy or waiting in the story.
    var hasWork: Bool { get }
    /// Its work now, in a line, for the hang guard's message.
    var summary: String { get }
}

/// What a look needs to know of the moment.
struct ActivityMoment {
    /// The main thread itself waits in the network (step 1): its queue cannot
    /// drain, so what is queued there cannot be waited for.
    var mainThreadWaits = false
}

struct AppActivity {
    let clock: StoryClock
    let sources: [any ActivitySource]

    init(clock: StoryClock) {
        self.init(clock: clock, sources: [
            NetworkActivity(clock: clock),
            MainQueueActivity(),
            DispatchWorkActivity(),
            StoryTimerActivity(clock: clock),
            SwiftTaskJobsActivity(),
        ])
    }

    /// The sources looked at in this order (a test's own).
    init(clock: StoryClock, sources: [any ActivitySource]) {
        self.clock = clock
        self.sources = sources
    }

    enum Look: Equatable {
        case idle
        /// What is still busy, in words: the hang guard's message.
        case busy(String)
    }

    /// Looks once. The sources are read one after another while the app's
    /// threads go on: the app is idle only if nothing they watch changed
    /// meanwhile (every change moves the Dispatch seam's generation on), or a
    /// thread that queued its main-queue block just after that queue was read
    /// and finished just before its own kind was would pass for none.
    func look(mainThreadWaits: Bool) -> Look {
        let moment = ActivityMoment(mainThreadWaits: mainThreadWaits)
        let before = seam_generation()
        for source in sources {
            if let busy = source.busy(moment) { return .busy(busy) }
        }
        return seam_generation() == before ? .idle : .busy("the app's work changed as it was looked at")
    }

    /// Whether what keeps the app busy needs the main queue, which the run's
    /// turn holds: then the turn hands it over at once instead of waiting for
    /// a change elsewhere.
    var needsTheMainQueue: Bool {
        let counts = seam_count()
        return counts.main_queue > 0 || counts.waiting_for_main_queue > 0 || SwiftTaskActivity.jobsWaiting > 0
            || MainQueueActivity.heldOperations > 0
    }

    /// Lets go of the work the story holds back until the app is idle: the
    /// app's threads waiting on a `DispatchSemaphore` take it, if it can be
    /// taken, in the order their work was submitted (the scheduler's order
    /// would differ from run to run). True if any went: the app is busy again.
    func releaseHeldWork() -> Bool { seam_grant_semaphores() > 0 }

    /// Nothing is going on and nothing can start by itself. (A suspended
    /// queue's operations wait for the app, which is idle: corelibs hands an
    /// operation to Dispatch only when it may start.)
    var hasStopped: Bool { !sources.contains { $0.hasWork } }

    /// Everything still going on, for the hang guard's message.
    var whatIsBusy: String { sources.map(\.summary).joined(separator: "\n  ") }
}

/// Requests: a thread on its way into or out of the network is busy; one
/// that sleeps until its answer is due waits in the story. A fetch that blocks no thread waits in the story too.
struct NetworkActivity: ActivitySource {
    let clock: StoryClock

    func busy(_ moment: ActivityMoment) -> String? {
        guard let moving = clock.callerOnItsWay else { return nil }
        return "a request for \(moving.url) is \(moving.state == .admitted ? "starting" : "ending")"
    }

    var hasWork: Bool { !clock.callersNow.isEmpty || clock.tasksInFlight > 0 }

    var summary: String {
        let lines = clock.callersNow.sorted { $0.url < $1.url }.map { caller in
            let state =
                switch caller.state {
                case .admitted: "starting"
                case .sleeping(let due): "in flight until \(Int(due.milliseconds)) ms"
                case .released: "ending"
                }
            return "request for \(caller.url)\(caller.isOnMainQueue ? " on the main queue" : ""): \(state)"
        }
        return (lines + ["fetches that block no thread: \(clock.tasksInFlight)"]).joined(separator: "\n  ")
    }
}

/// The main queue: blocks the app handed to it (`DispatchQueue.main.async`,
/// `OperationQueue.main`) that have not run yet, and the app's threads
/// waiting for it (`DispatchQueue.main.sync`).
///
/// `OperationQueue.main` runs one operation at a time for the whole process
/// and hands the next to Dispatch only when the one before has run: an
/// operation the app adds while another's (another test's) is queued waits
/// in the queue's list, where the seam cannot see it: the list is looked at
/// too, or the clock would move on without it.
struct MainQueueActivity: ActivitySource {
    func busy(_ moment: ActivityMoment) -> String? {
        let counts = seam_count()
        if counts.waiting_for_main_queue > 0 { return "\(counts.waiting_for_main_queue) threads wait for the main queue" }
        // While the main thread waits in the network, it may be inside one of the queue's operations: nothing
        // queued there can run before it returns.
        guard !moment.mainThreadWaits else { return nil }
        let toRun = counts.main_queue - counts.main_queue_parked
        if toRun > 0 { return "the main queue: \(toRun) blocks to run" }
        let held = Self.heldOperations
        return held > 0 ? "OperationQueue.main: \(held) operations to run" : nil
    }

    var hasWork: Bool { seam_count().main_queue > 0 || Self.heldOperations > 0 }

    var summary: String {
        "the main queue: \(seam_count().main_queue) blocks to run, \(Self.heldOperations) operations in OperationQueue.main"
    }

    /// The operations in `OperationQueue.main` that can run and have not
    /// begun. (One waiting for a dependency waits for work the seam counts;
    /// the run's turn is a block of the main queue, so none runs as it looks.)
    static var heldOperations: Int {
        OperationQueue.main.operations.count { $0.isReady && !$0.isExecuting && !$0.isFinished }
    }
}

/// Work handed to Dispatch off the main queue: every operation queue's
/// (corelibs runs each operation as a Dispatch block, submitted only once
/// the queue may start it) and the app's own GCD blocks. Busy while any is
/// queued or running and not waiting in the story (in the network, on a
/// semaphore, or for a thread: `AppActivity.releaseHeldWork`).
struct DispatchWorkActivity: ActivitySource {
    func busy(_ moment: ActivityMoment) -> String? {
        let counts = seam_count()
        let active = counts.elsewhere - counts.elsewhere_parked
        return active > 0 ? "\(active) blocks or operations queued or running, not yet in the network" : nil
    }

    var hasWork: Bool { seam_count().elsewhere > 0 }

    var summary: String {
        let counts = seam_count()
        return "Dispatch work off the main queue: \(counts.elsewhere), \(counts.elsewhere_parked) of it waiting "
            + "in the story (\(seam_semaphore_waiters()) on a semaphore, \(seam_thread_waiters()) for a thread)"
    }
}

/// Work the story clock will hand to a queue at a story time (a fetch's
/// chunks): it waits in the story until then, and is Dispatch work once handed over.
struct StoryTimerActivity: ActivitySource {
    let clock: StoryClock

    func busy(_ moment: ActivityMoment) -> String? { nil }

    var hasWork: Bool { clock.deliveriesPending > 0 }

    var summary: String { "deliveries due later: \(clock.deliveriesPending)" }
}

/// Swift tasks and actor jobs (step 11): the jobs the runtime's enqueue hook
/// handed to the story and that have not finished running (`SwiftTaskActivity`).
/// They run on the main queue, so while the main thread waits in the network
/// they wait with it.
struct SwiftTaskJobsActivity: ActivitySource {
    func busy(_ moment: ActivityMoment) -> String? {
        let jobs = SwiftTaskActivity.jobsWaiting
        return jobs > 0 && !moment.mainThreadWaits ? "Swift tasks: \(jobs) jobs to run" : nil
    }

    var hasWork: Bool { SwiftTaskActivity.jobsWaiting > 0 }

    var summary: String { "Swift tasks: \(SwiftTaskActivity.jobsWaiting) jobs to run" }
}
