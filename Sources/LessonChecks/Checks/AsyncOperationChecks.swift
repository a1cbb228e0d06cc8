import Foundation
import HarnessSync
import LessonKit
import SlowNetwork

/// The checks of exercise 10 (an asynchronous operation's state),
/// parameterized by the code under test: anything that makes an asynchronous
/// download operation from a URL, a network, a progress and a completion
/// handler (step 10's `ImageDownloadOperation`, the exercise's starting code,
/// the learner's workbench).
///
/// Each check watches what the operation says (`isExecuting`, `isFinished`)
/// and what the others hear: the queue (does it let the operation go, and
/// start the next?) and the operation's `completionBlock`, which
/// swift-corelibs-foundation runs only when it is told the operation finished.
///
/// They play on a story clock (`SleepClock`) and read what they saw once the
/// story has nothing left to play: "it never finishes" is "the story went
/// idle with it unfinished", and "its completion block never ran" is "idle,
/// and it had not run", the same in every run, on any machine.
public enum AsyncOperationChecks {
    public typealias Make = (
        _ url: URL, _ network: SlowNetwork, _ progress: @escaping @Sendable (_ received: Int, _ expected: Int) -> Void,
        _ completion: @escaping @Sendable (Result<Data, NetworkError>) -> Void
    ) -> Operation

    static let downloads = 4
    static let atOnce = 2

    public static let finishes = BugText(
        name: "an operation that never finishes: the queue stalls",
        expected:
            "each of 4 downloads says isExecuting while it downloads, and isFinished (no longer isExecuting) once it "
            + "has delivered; one cancelled while it downloads finishes too",
        why:
            "An asynchronous operation's `start()` returns while its work goes on, and the queue then believes only "
            + "`isFinished`. The base class's flags know nothing of a `start()` you wrote: `isFinished` stays false, "
            + "the operation keeps its slot for ever, and once `maxConcurrentOperationCount` of them have started "
            + "nothing else ever starts.",
        hints: Hints(
            question:
                "`start()` returns before the download is over. What do `isExecuting` and `isFinished` say while "
                + "it downloads, and once it has delivered?",
            place: CodePlace(
                "MARK: the state of an asynchronous operation", in: "ImageDownloadOperation.swift",
                role: "where your operation says `isExecuting` and `isFinished`",
                presumes: CodePlace.Presumption(
                    ["isFinished"],
                    otherwise: "your operation: it does not override `isExecuting` and `isFinished` yet")),
            api:
                "Override `isAsynchronous` (true), and `isExecuting` and `isFinished` to read a state of the "
                + "operation's own (ready, executing, finished) under `lock`; set it to executing in `start()`, "
                + "and to finished at the end of `complete(with:)`.",
            code: [
                .lines(
                    from: "private enum State {",
                    through: "public override var isFinished: Bool { lock.withLock { state == .finished } }",
                    in: "ImageDownloadOperation.swift"),
                .lines(from: "completion(result)", through: "move(to: .finished)", in: "ImageDownloadOperation.swift"),
            ]))
    public static let announces = BugText(
        name: "state changed without a word: nobody hears it finish",
        expected:
            "once `isFinished` reads true, the operation's `completionBlock` runs (also when it was started by hand, "
            + "with no queue to look) and the queue lets it go",
        why:
            "Nobody polls `isFinished`: they are told. On Apple's platforms the queue observes it with KVO. "
            + "swift-corelibs-foundation has no KVO: `Operation.didChangeValue(forKey: \"isFinished\")` is the "
            + "only signal (its `willChangeValue` does nothing, and a `didChangeValue` made while `isFinished` still "
            + "reads false is ignored). Unannounced, `isFinished` reads true, but the completion block never runs and "
            + "the operation is never let go (a queue on Linux looks once more only as `start()` returns).",
        hints: Hints(
            question:
                "Nobody polls `isFinished`. How does the queue (or whoever set the `completionBlock`) learn that "
                + "it just turned true?",
            place: CodePlace(
                "private func complete(with result:", in: "ImageDownloadOperation.swift",
                role: "where your operation's download ends"),
            api:
                "`willChangeValue(forKey:)` and `didChangeValue(forKey:)` for \"isExecuting\" and \"isFinished\" "
                + "around every change of the state, the did after the new value is set, and outside the lock: on "
                + "Linux, `didChangeValue(forKey: \"isFinished\")` is the only thing the queue hears.",
            code: [
                .block("private func move(to new: State) {", in: "ImageDownloadOperation.swift")
            ]))
    public static let cancelledBeforeStart = BugText(
        name: "cancelled before it starts, it never finishes",
        expected:
            "cancelled while waiting, then started (by a queue, or by hand): finished at once, its completion block "
            + "run, and not one request made",
        why:
            "A queue starts a cancelled operation too: `cancel()` only sets a flag (and makes it ready). The default "
            + "`start()` sees the flag and finishes the operation; yours replaces it, so it must look at "
            + "`isCancelled` itself and finish, or the cancelled operation waits in the queue for ever, after "
            + "downloading what nobody wants.",
        hints: Hints(
            question:
                "A queue starts a cancelled operation too. What does your `start()` do when `isCancelled` is "
                + "already true?",
            place: CodePlace(
                "override func start()", in: "ImageDownloadOperation.swift", role: "your operation's `start()`",
                presumes: CodePlace.Presumption(
                    ["func start("], otherwise: "your operation: it does not override `start()` yet")),
            api:
                "At the top of `start()`, look at `isCancelled`: if it is set, complete with "
                + "`.failure(.cancelled)` (which finishes the operation) and return, before any fetch and before "
                + "the state says executing.",
            code: [
                .lines(
                    from: "guard !isCancelled else { return complete(with: .failure(.cancelled)) }",
                    through: "move(to: .executing)", in: "ImageDownloadOperation.swift")
            ]))

    static func conditions() -> NetworkConditions {
        var conditions = NetworkConditions()
        conditions.latency = 0.5
        return conditions
    }

    static let icons = AppCatalog.bundled().entries.prefix(downloads).compactMap { URL(string: $0.icon) }

    /// Plays the operations `make` makes and judges them; the hints are said
    /// of `code`, the learner's files, when given.
    /// - Parameter hangSeconds: the story clock's hang guard (`SleepClock`).
    public static func check(
        narrate: ((String) -> Void)? = nil, code: LearnerCode? = nil, hangSeconds: Double = 30, make: Make
    ) async -> [CheckResult] {
        let (plays, stuck) = await ExclusiveRun.run { _ in await playAll(make, hangSeconds: hangSeconds) }
        if let stuck {
            narrate?("the story clock gave up: \(stuck)")
            return unmeasured(because: stuck)
        }
        let (byHand, queued, cancelled, cancelledInQueue, cancelledRunning) = (
            plays[0], plays[1], plays[2], plays[3], plays[4]
        )
        narrate?("\(downloads) started by hand: \(byHand.summary)")
        narrate?("\(downloads) on a queue of \(atOnce) at once: \(queued.summary)")
        narrate?("cancelled, then started by hand: \(cancelled.summary)")
        narrate?("cancelled while waiting in a queue: \(cancelledInQueue.summary)")
        narrate?("cancelled while it downloads: \(cancelledRunning.summary)")
        return [
            judgeFinishing(byHand, queued, cancelledRunning: cancelledRunning, code: code),
            judgeAnnouncing(byHand, queued, code: code),
            judgeCancelledBeforeStart(cancelled, cancelledInQueue, code: code),
        ]
    }

    // MARK: what the checks saw

    /// One play: what the operations said and what was heard of them.
    struct Play {
        var operations = 0
        /// Delivered: the completion handler was called.
        var delivered = 0
        var finished = 0
        /// Said `isExecuting` after it finished.
        var executingAfter = 0
        /// Progress reports during which it said `isExecuting`, and all of them.
        var executingWhileDownloading = 0
        var progressReports = 0
        /// Its `completionBlock` ran.
        var announced = 0
        /// Operations the queue still held at the end (nil: no queue).
        var heldByQueue: Int?
        var requests = 0
        var cancelledDeliveries = 0

        var summary: String {
            var parts = [
                "\(finished) of \(operations) finished", "\(announced) announced it",
                "\(delivered) delivered", "\(requests) \(requests == 1 ? "request" : "requests")",
            ]
            if let heldByQueue { parts.append("the queue still holds \(heldByQueue)") }
            return parts.joined(separator: " · ")
        }
    }

    /// Records, from any thread. Its lock is out of Thread Sanitizer's sight (`Locked`'s default): the
    /// learner's operation calls it from its download's threads and the checks read it from theirs, and a lock
    /// TSan saw there would order those threads and hide a race in the learner's code from the race run.
    final class Record: @unchecked Sendable {
        private let lock = Locked()
        private var play = Play()

        func update(_ change: (inout Play) -> Void) { lock.withLock { change(&play) } }
        var now: Play { lock.withLock { play } }
    }

    /// Lets a handler ask about the operation it belongs to.
    final class Holder: @unchecked Sendable {
        weak var operation: Operation?
    }

    /// `make`'s operation, its flags and handlers recorded; `onProgress` runs after each progress report.
    static func makeRecorded(
        _ make: Make, url: URL, network: SlowNetwork, record: Record, onProgress: @escaping @Sendable () -> Void = {}
    ) -> Operation {
        let holder = Holder()
        let progress: @Sendable (Int, Int) -> Void = { _, _ in
            defer { onProgress() }
            let executing = holder.operation?.isExecuting == true && holder.operation?.isFinished == false
            record.update {
                $0.progressReports += 1
                if executing { $0.executingWhileDownloading += 1 }
            }
        }
        let completion: @Sendable (Result<Data, NetworkError>) -> Void = { result in
            record.update {
                $0.delivered += 1
                if case .failure(.cancelled) = result { $0.cancelledDeliveries += 1 }
            }
        }
        let operation = make(url, network, progress, completion)
        holder.operation = operation
        operation.completionBlock = { record.update { $0.announced += 1 } }
        return operation
    }

    /// Operations on their way, and what to read them by.
    struct Started {
        let operations: [Operation]
        let record: Record
        let network: SlowNetwork
        let queue: OperationQueue?

        /// What was seen of them.
        var play: Play {
            var play = record.now
            play.operations = operations.count
            play.finished = operations.filter(\.isFinished).count
            play.executingAfter = operations.filter { $0.isFinished && $0.isExecuting }.count
            play.heldByQueue = queue?.operationCount
            play.requests = network.log.count
            return play
        }
    }

    /// The four plays at once, on one story clock, each on a network of its
    /// own; read once the story has nothing left to play (nil: why the clock
    /// gave up first, then they are read as they were).
    static func playAll(_ make: Make, hangSeconds: Double) async -> (plays: [Play], stuck: String?) {
        let clock = SleepClock(hangSeconds: hangSeconds)
        defer { clock.shutDown() }
        // Everything the plays hand to Dispatch, and what that hands on (a
        // queue's next operation, a completion block), keeps the time still.
        clock.watchDispatchWork()
        let started = clock.storyTurn {
            [
                startByHand(make, count: downloads, cancelFirst: false, on: clock), startQueue(make, on: clock),
                startByHand(make, count: 1, cancelFirst: true, on: clock), startCancelledInQueue(make, on: clock),
                startCancelledWhileDownloading(make, on: clock),
            ]
        }
        let ended = await clock.waitUntilIdle()
        let plays = started.map(\.play)
        for play in started { play.network.shutdown() }
        return (plays, ended ? nil : clock.stuck ?? "it was shut down")
    }

    /// Four downloads on a queue that runs two at once.
    static func startQueue(_ make: Make, on clock: SleepClock) -> Started {
        let network = SlowNetwork(conditions: conditions(), clock: clock)
        let record = Record()
        let operations = icons.map { makeRecorded(make, url: $0, network: network, record: record) }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = atOnce
        for operation in operations { queue.addOperation(operation) }
        return Started(operations: operations, record: record, network: network, queue: queue)
    }

    /// Downloads started by hand, each in a block of its own on a global
    /// queue (after a cancel when `cancelFirst`): no queue looks at them, only
    /// their own word counts.
    static func startByHand(_ make: Make, count: Int, cancelFirst: Bool, on clock: SleepClock) -> Started {
        let network = SlowNetwork(conditions: conditions(), clock: clock)
        let record = Record()
        let operations = icons.prefix(count).map { makeRecorded(make, url: $0, network: network, record: record) }
        for operation in operations {
            if cancelFirst { operation.cancel() }
            DispatchQueue.global().async { operation.start() }
        }
        return Started(operations: operations, record: record, network: network, queue: nil)
    }

    /// One download cancelled while it waits in a suspended queue, which then resumes.
    static func startCancelledInQueue(_ make: Make, on clock: SleepClock) -> Started {
        let network = SlowNetwork(conditions: conditions(), clock: clock)
        let record = Record()
        let operation = makeRecorded(make, url: icons[0], network: network, record: record)
        let queue = OperationQueue()
        queue.isSuspended = true
        queue.addOperation(operation)
        operation.cancel()
        queue.isSuspended = false
        return Started(operations: [operation], record: record, network: network, queue: queue)
    }

    /// One download started by hand and cancelled at its first progress
    /// report, from another thread, as a cell given another row would.
    static func startCancelledWhileDownloading(_ make: Make, on clock: SleepClock) -> Started {
        let network = SlowNetwork(conditions: conditions(), clock: clock)
        let record = Record()
        let cancelling = Holder()
        let operation = makeRecorded(make, url: icons[0], network: network, record: record) {
            guard let operation = cancelling.operation else { return }
            cancelling.operation = nil
            DispatchQueue.global().async { operation.cancel() }
        }
        cancelling.operation = operation
        DispatchQueue.global().async { operation.start() }
        return Started(operations: [operation], record: record, network: network, queue: nil)
    }

    // MARK: the verdicts

    /// A story the clock gave up on was cut short: "never finished" and "never
    /// heard" are read once the story has nothing left to play, so what the
    /// plays had done by then proves nothing either way (on a loaded machine
    /// it was "0 of 4 finished" for a right operation).
    static func unmeasured(because stuck: String) -> [CheckResult] {
        [finishes, announces, cancelledBeforeStart].map { text in
            CheckResult(
                bug: text.name, passed: false, measured: "not measured: the story never went quiet (\(stuck))",
                expected: text.expected,
                hint:
                    "Something in your code kept a thread busy without waiting on the network (a loop, or a wait "
                    + "that nothing ends), so the story could not end: the story clock said what was busy.",
                isSafeguard: text.isSafeguard, notMeasured: true)
        }
    }

    static func judgeFinishing(
        _ byHand: Play, _ queued: Play, cancelledRunning: Play, code: LearnerCode?
    ) -> CheckResult {
        let executing = byHand.progressReports > 0 && byHand.executingWhileDownloading == byHand.progressReports
        let passed =
            byHand.finished == byHand.operations && byHand.executingAfter == 0 && executing
            && cancelledRunning.finished == cancelledRunning.operations
        var measured = "started by hand: \(byHand.finished) of \(byHand.operations) finished"
        if byHand.finished < byHand.operations { measured += " (isFinished stayed false)" }
        if byHand.executingAfter > 0 { measured += ", \(byHand.executingAfter) still said isExecuting after it" }
        if !executing {
            measured +=
                ", isExecuting during \(byHand.executingWhileDownloading) of \(byHand.progressReports) progress reports"
        }
        // Said only when the other plays finish: an operation that never finishes never finishes cancelled either.
        if byHand.finished == byHand.operations, cancelledRunning.finished < cancelledRunning.operations {
            measured += " · cancelled while it downloads: never finished"
                + (cancelledRunning.delivered == 0 ? ", its completion handler never called" : "")
        }
        // Said finished by hand, a queue that stalls stalls on the announcement, that check's business.
        if !passed, queued.finished < queued.operations { measured += " · on a queue: " + queueSaw(queued) }
        let onlyTheCancelled =
            byHand.finished == byHand.operations && byHand.executingAfter == 0 && executing
            && cancelledRunning.finished < cancelledRunning.operations
        if passed, queued.finished < queued.operations || queued.heldByQueue != 0 {
            // Its flags are right, and a queue stalled all the same: that stall is the announcement's row, and
            // this ✓ is titled by what it measured, not by a stall it does not claim is gone.
            return CheckResult(
                bug: finishes.name, passed: true, measured: measured, expected: finishes.expected,
                hint: finishes.hints.nudge(in: code), isSafeguard: false, shape: "an operation that never says it finished")
        }
        guard onlyTheCancelled else { return finishes.result(passed: passed, measured: measured, code: code) }
        // Its flags are right: what is missing is the way from a cancel to the finish.
        let look = announces.hints.place.said(in: code ?? LearnerCode(files: [:])) ?? "where your operation finishes"
        return CheckResult(
            bug: finishes.name, passed: false, measured: measured, expected: finishes.expected,
            hint: "Your operation was cancelled while it downloaded, and it never finished: a queue would keep its "
                + "slot for ever. When the download stops because of the cancel, what calls the completion handler "
                + "and makes the operation finished? Look at \(look).",
            isSafeguard: false,
            diagnosis:
                "each operation said isExecuting while it downloaded and isFinished once it had delivered; the one "
                + "cancelled while it downloaded never said isFinished")
    }

    /// What a queue of `atOnce` did with its operations: "2 started, never the rest: stalled".
    static func queueSaw(_ queued: Play) -> String {
        "\(queued.requests) of \(queued.operations) started, \(atOnce) at once, "
            + (queued.requests < queued.operations ? "never the rest: stalled" : "\(queued.finished) finished")
    }

    static func judgeAnnouncing(_ byHand: Play, _ queued: Play, code: LearnerCode?) -> CheckResult {
        // No operation finished: whether a finish would be heard was never measured, and what failed is the other row.
        guard byHand.finished > 0 || queued.finished > 0 else {
            return CheckResult(
                bug: announces.name, passed: false,
                measured: "not measured apart from \(finishes.name): isFinished never turned true, so nothing was "
                    + "there to announce",
                expected: announces.expected,
                hint: "Judged once \"\(finishes.name)\" is gone: its verdict above says what to look at.",
                isSafeguard: false, notMeasured: true)
        }
        let passed =
            byHand.finished == byHand.operations && byHand.announced == byHand.finished
            && queued.finished == queued.operations && queued.announced == queued.finished && queued.heldByQueue == 0
        var measured =
            "started by hand: \(byHand.finished) said finished, \(byHand.announced) heard (completion blocks run) · "
            + "on a queue: \(queued.finished) of \(queued.operations) said finished, \(queued.announced) heard, "
            + "the queue still holds \(queued.heldByQueue ?? 0)"
        if queued.requests < queued.operations { measured += " (\(queueSaw(queued)))" }
        return announces.result(passed: passed, measured: measured, code: code)
    }

    static func judgeCancelledBeforeStart(_ byHand: Play, _ inQueue: Play, code: LearnerCode?) -> CheckResult {
        func said(_ play: Play) -> String {
            let finished =
                play.finished == 1 ? (play.announced == 1 ? "finished" : "finished unheard") : "never finished"
            return finished + (play.requests > 0 ? ", after asking the network (\(play.requests) request)" : "")
        }
        let plays = [byHand, inQueue]
        let passed = plays.allSatisfy { $0.finished == 1 && $0.announced == 1 && $0.requests == 0 }
        let measured = "started by hand: \(said(byHand)) · in a queue: \(said(inQueue))"
        // Finished at once and asking nothing, only unheard: `start()` is right, the announcement is not.
        guard !passed, plays.allSatisfy({ $0.finished == 1 && $0.requests == 0 }) else {
            return cancelledBeforeStart.result(passed: passed, measured: measured, code: code)
        }
        return CheckResult(
            bug: cancelledBeforeStart.name, passed: false, measured: measured, expected: cancelledBeforeStart.expected,
            hint: announces.hints.nudge(in: code), isSafeguard: false,
            diagnosis:
                "your start() finished it at once and asked the network nothing, but its completion block never ran: "
                + "nobody heard it finish, as when \(announces.name)")
    }
}
