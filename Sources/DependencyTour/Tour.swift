import Foundation
import LessonKit
import SlowNetwork

/// Step 8 as a story told in the terminal: each part runs real operations,
/// prints what this machine did, and leaves its numbers in the report.
///
/// The update's parts watch it from outside: what each step did, when and on
/// which thread, from the lines it logged; the download from the network's
/// request log; the result from its status label.
final class Tour {
    let plan: TourPlan
    let run: CustomLessonRun
    let conditions: NetworkConditions
    private let make: (UpdateWorld) -> UpdateControls
    private var measures: [String: Double] = [:]
    /// What this machine's timing decided, in words: not story figures.
    private var machineNotes: [String] = []
    private var section = 0

    init(plan: TourPlan, run: CustomLessonRun, make: @escaping (UpdateWorld) -> UpdateControls) {
        self.plan = plan
        self.run = run
        self.make = make
        var conditions = NetworkConditions(run.options)
        conditions.jitter = 0.5
        self.conditions = conditions
    }

    private var console: LessonConsole { run.console }
    private var trace: OperationTrace { run.trace }
    private var clock: SleepClock { run.trace.clock }
    /// The cycle is given this long (story seconds) to finish before we call it hung.
    private let cycleTimeout = 2.0

    func play() async -> CustomLessonOutcome {
        console.say(
            "Lesson 08 · dependencies · seed \(conditions.seed) · speed \(String(format: "%g", run.options.speed))×")
        // What the tour's turns hand to Dispatch keeps the time still, and a queue letting go is heard.
        clock.watchDispatchWork()
        let parts = plan.parts
        if parts.contains("chain") {
            if plan.showsBroken { await chain(withDependencies: false) }
            if plan.showsFixed { await chain(withDependencies: true) }
        }
        if parts.contains("cancel") { await cancelledDependency() }
        if parts.contains("cycle") {
            if plan.showsBroken { await uncheckedCycle() }
            if plan.showsFixed { checkedCycle() }
        }
        let experiments = QueueExperiments(trace: trace)
        if parts.contains("priority") { await priorities(experiments) }
        if parts.contains("qos") { await qualityOfService(experiments) }
        if parts.contains("completion") { await lateCompletionBlocks(experiments) }
        if parts.contains("wait") { await waiting(experiments) }
        if parts.contains("start") { await directStart(experiments) }
        if parts.contains("blocks") { await severalBlocks(experiments) }
        if parts.contains("limit") { await limits(experiments) }
        if parts.contains("start-unready") { await startUnready() }
        return CustomLessonOutcome(
            story: "software update, variant \(plan.variant.rawValue)", measures: measures,
            sentences: TourSentences.all,
            machineNotes: machineNotes)
    }

    /// A part's title on screen, and its short name on the timeline.
    private func heading(_ title: String, timeline label: String) {
        section += 1
        trace.event("\(section) \(label)")
        console.say("\n── \(section). \(title) ──")
    }

    /// The lanes as drawn, indented, as wide as the terminal (80 columns when it is not one): written
    /// as they are, since a wrapped lane would put its spans at the wrong time.
    private func chart(since start: Double) {
        let indent = "    "
        let columns = (StandardStream.output.terminal.columns ?? 80) - indent.count
        let chart = OperationTrace.laneChart(trace.spans(since: start), columns: columns)
        console.write(chart.split(separator: "\n").map { indent + $0 + "\n" }.joined())
    }

    private func describe(_ steps: [UpdateWorld.FinishedStep], since start: Double) -> String {
        steps.map { "\($0.name) at \(Int(($0.ms - start).rounded())) ms (\($0.lane))" }.joined(separator: ", ")
    }

    /// Draws what the update did on the trace, from what was seen of it: the
    /// download as the network timed it, on the lane that logged it; the unzip
    /// back from its log line by the time it was given (its start is not seen
    /// from outside); the install at its log line.
    private func recordSpans(of world: UpdateWorld) {
        for step in world.finishedSteps {
            let startMs: Double
            switch step.name {
            case "download": startMs = world.downloads.first?.startMs ?? step.ms
            case "unzip": startMs = step.ms - world.unzipSeconds * 1000
            default: startMs = step.ms
            }
            trace.record(.init(name: step.name, lane: step.lane, startMs: min(startMs, step.ms), endMs: step.ms))
        }
    }

    /// The step's update, made in a world of its own, its queues watched by the clock.
    private func makeUpdate() -> (update: UpdateControls, world: UpdateWorld) {
        let world = UpdateWorld(conditions: conditions, trace: trace)
        let update = make(world)
        clock.watch(update.backgroundQueue, OperationQueue.main)
        return (update, world)
    }

    // MARK: the chain

    private func chain(withDependencies: Bool) async {
        heading(
            withDependencies ? "With dependencies (the fix)" : "The update without dependencies (the bug)",
            timeline: withDependencies ? "dependencies" : "no dependencies")
        let (update, world) = makeUpdate()
        console.say(
            withDependencies
                ? "  unzip.addDependency(download); install.addDependency(unzip) — install waits on the main queue"
                    + " for an operation on the background queue"
                : "  install on OperationQueue.main; download and unzip on a background queue; no addDependency")
        console.say("  unzip takes \(Int(world.unzipSeconds * 1000)) ms (drawn from seed \(conditions.seed))")
        let start = trace.now()
        let operations = clock.storyTurn { update.start(withDependencies) }
        _ = await clock.waitUntilFinished(operations)
        let steps = world.finishedSteps
        recordSpans(of: world)
        let inOrder = steps.map(\.name) == UpdateWorld.steps
        let unzipHadPackage = steps.first { $0.name == "unzip" }.map { !$0.foundNothing } ?? false
        console.say(
            "  finished: \(describe(steps, since: start))  \(console.mark(inOrder)) \(inOrder ? "in order" : "out of order")"
        )
        // Offline (or a failed request), the package never came: say so, rather
        // than blame the order.
        let downloadFailed = world.network.log.failed > 0
        let why = downloadFailed ? "the download failed" : "it started before the download finished"
        console.say(
            "  unzip \(unzipHadPackage ? "found the package" : "found no package: \(why)")"
        )
        console.say("  install said: \"\(update.statusLabel.text ?? "")\"")
        await world.completionBlocksLogged()
        let completions = world.completionBlockLanes
        let onMain = completions.values.filter { $0 == "main queue" }.count
        if withDependencies {
            console.say(
                "  completionBlock ran on: "
                    + UpdateWorld.steps.map { "\($0) → \(completions[$0] ?? "?")" }.joined(separator: ", ")
                    + (onMain == 0 ? " (never the main queue, not even for install)" : ""))
        }
        chart(since: start)
        let prefix = withDependencies ? "chain" : "chainNoDependencies"
        measures[prefix + "InOrder"] = inOrder ? 1 : 0
        measures[prefix + "UnzipHadPackage"] = unzipHadPackage ? 1 : 0
        measures[prefix + "Installed"] = steps.last.map { $0.name == "install" && !$0.foundNothing } == true ? 1 : 0
        if withDependencies {
            measures["chainInstallOnMainQueue"] = steps.first { $0.name == "install" }?.lane == "main queue" ? 1 : 0
            measures["completionBlocksOnMainQueue"] = Double(onMain)
        }
    }

    private func cancelledDependency() async {
        heading("A cancelled dependency does not hold back what depends on it", timeline: "cancelled")
        let (update, world) = makeUpdate()
        let operations = clock.storyTurn { update.startWithCancelledDownload() }
        _ = await clock.waitUntilFinished(operations)
        let steps = world.finishedSteps
        recordSpans(of: world)
        let unzipRan = steps.contains { $0.name == "unzip" }
        console.say("  download.cancel() before it started; unzip depends on download, install on unzip")
        console.say(
            "  ran: \(steps.map(\.name).joined(separator: ", ")) — unzip ran \(unzipRan ? "anyway" : "not at all")"
                + "; install said: \"\(update.statusLabel.text ?? "")\"")
        console.say("  A dependency means \"after\", not \"after success\": look at what it left (our unzip does).")
        measures["cancelledDownloadUnzipRan"] = unzipRan ? 1 : 0
    }

    // MARK: the cycle

    private func uncheckedCycle() async {
        heading("A dependency cycle, unchecked (the bug)", timeline: "cycle")
        let (update, world) = makeUpdate()
        console.say("  the tutorial's commented-out line switched on: download.addDependency(install)")
        let operations = clock.storyTurn { update.startWithUncheckedCycle() }
        let finishedInTime = await clock.waitUntilFinished(operations, atMost: cycleTimeout)
        let finished = operations.filter(\.isFinished).count
        let ready = operations.filter(\.isReady).count
        let waiting = update.backgroundQueue.operationCount
        console.say(
            "  after \(Int(cycleTimeout * 1000)) ms: \(finished) of 3 finished, \(ready) ready, the update queue still"
                + " holds \(waiting) — and no error, no log, nothing  \(console.mark(finishedInTime))")
        // Let it go, or it would wait for ever: a cancelled operation ignores its dependencies. Both queues are
        // held while cancelling: the first one cancelled finishes at once, and the next one in the cycle, its
        // dependency gone, would otherwise start its work before the loop reaches it.
        trace.event("cycle cancelled")
        let releaseStart = trace.now()
        clock.storyTurn {
            OperationQueue.main.isSuspended = true
            update.backgroundQueue.isSuspended = true
            for operation in operations { operation.cancel() }
            update.backgroundQueue.isSuspended = false
            OperationQueue.main.isSuspended = false
        }
        let released = await clock.waitUntilFinished(operations)
        let ran = world.finishedSteps.count
        console.say(
            "  released by cancelling all three: \(released ? "all finished" : "still stuck") after"
                + " \(Int(trace.now() - releaseStart)) ms, \(ran) of them ran their work")
        measures["cycleFinishedWithinTimeout"] = Double(finished)
        measures["cycleReadyOperations"] = Double(ready)
        measures["cycleTimeoutMs"] = cycleTimeout * 1000
        measures["cycleReleasedByCancel"] = released ? 1 : 0
        measures["cycleOperationsThatRan"] = Double(ran)
    }

    private func checkedCycle() {
        heading("The cycle check (the fix)", timeline: "check")
        let (update, _) = makeUpdate()
        do {
            _ = try update.startCheckingForCycles(true)
            console.say("  enqueued: no cycle found \(console.mark(false))")
            measures["cycleDetected"] = 0
        } catch {
            console.say("  refused before anything was enqueued \(console.mark(true))\n  \(error)")
            console.say("  the update queue holds \(update.backgroundQueue.operationCount) operations")
            measures["cycleDetected"] = 1
            // The error names the cycle in "must finish before" order, an arrow before each operation after the first.
            measures["cycleLength"] = Double("\(error)".components(separatedBy: " → ").count - 1)
        }
    }

    // MARK: the queue's other features

    private func priorities(_ experiments: QueueExperiments) async {
        heading("queuePriority on a suspended queue that runs one at a time", timeline: "priority")
        let order = await experiments.priorityOrder()
        let documented = ["veryHigh", "high", "normal", "low", "veryLow"]
        console.say(
            "  added: \(QueueExperiments.priorities.map(\.0).joined(separator: ", ")); then isSuspended = false")
        console.say(
            "  ran:   \(order.joined(separator: ", "))  \(console.mark(order == documented))"
                + (order == documented ? " highest first, as documented" : " not the documented order"))
        measures["priorityOrderAsDocumented"] = order == documented ? 1 : 0
    }

    private func qualityOfService(_ experiments: QueueExperiments) async {
        heading("qualityOfService", timeline: "QoS")
        let cores = ProcessInfo.processInfo.activeProcessorCount
        console.say("  a .userInteractive and a .background queue, equal CPU-bound operations, added in turns")
        // More busy threads than cores, then one each: the difference shows when they compete for the CPU.
        let load = LoadAverage.lastMinute().map { String(format: "%.2f", $0) } ?? "?"
        console.say("  (other work on this machine now: load average \(load) on \(cores) cores)")
        for (perQueue, label) in [(cores * 2, "contended"), (1, "one each")] {
            let race = await experiments.qualityOfServiceRace(operationsPerQueue: perQueue)
            let ratio = race.backgroundMeanMs / max(race.userInteractiveMeanMs, 1)
            func nice(_ values: Set<Int>) -> String { values.sorted().map(String.init).joined(separator: "/") }
            console.say(
                "  \(perQueue) operation\(perQueue == 1 ? "" : "s") per queue: finished on average after"
                    + " userInteractive \(Int(race.userInteractiveMeanMs)) ms, background \(Int(race.backgroundMeanMs)) ms"
                    + " (background takes \(String(format: "%.2f", ratio))×)")
            if label == "contended" {
                console.say(
                    "  accepted and read back: \(race.acceptedAndReadBack ? "yes" : "no"); the threads' nice values:"
                        + " userInteractive \(nice(race.userInteractiveNice)), background \(nice(race.backgroundNice))")
                measures["qosUserInteractiveNice"] = Double(race.userInteractiveNice.min() ?? 0)
                measures["qosBackgroundNice"] = Double(race.backgroundNice.max() ?? 0)
            }
            machineNotes.append(
                "QoS, \(label): .background took \(String(format: "%.2f", ratio))× as long as .userInteractive"
                    + " (\(Int(race.backgroundMeanMs)) and \(Int(race.userInteractiveMeanMs)) ms of wall time)")
        }
        console.say(
            "  Here libdispatch runs each QoS on threads with a different nice value, so QoS matters whenever"
                + " threads compete for the CPU (with each other or with other programs), and not otherwise."
                + " iOS also maps QoS to CPU priority, and to more (I/O, timer coalescing, which cores).")
    }

    private func lateCompletionBlocks(_ experiments: QueueExperiments) async {
        heading("completionBlock set after addOperation, as tutorial 000 does", timeline: "late completion")
        let late = await experiments.completionBlockSetAfterAdding()
        console.say(
            "  set right after addOperation, \(late.rounds) times: \(late.ranWhenSetRightAfter) of \(late.rounds)"
                + " blocks ran  \(console.mark(late.ranWhenSetRightAfter == late.rounds))")
        console.say(
            "  set once the operation had left the queue: the block \(late.ranWhenSetAfterItLeft ? "ran" : "never ran")"
                + "  \(console.mark(late.ranWhenSetAfterItLeft))")
        console.say("  The block is read when the operation finishes: set it before addOperation.")
        machineNotes.append(
            "a completionBlock set right after addOperation ran \(late.ranWhenSetRightAfter) of \(late.rounds) times"
                + " (a race the threads decide)")
        measures["lateCompletionBlockRanAfterItLeft"] = late.ranWhenSetAfterItLeft ? 1 : 0
    }

    private func waiting(_ experiments: QueueExperiments) async {
        heading("addOperations(_:waitUntilFinished: true)", timeline: "wait")
        let waiting = await experiments.addOperationsAndWait()
        console.say(
            "  called on \(waiting.waiterLane) with 3 operations of 300 ms:"
                + " it blocked \(Int(waiting.blockedMs)) ms (they ran at most \(waiting.maxAtOnce) at once);"
                + " all finished when it returned: \(waiting.allFinishedWhenItReturned ? "yes" : "no")")
        console.say("  It blocks the calling thread: on the main queue that is step 1's frozen screen.")
        measures["waitUntilFinishedBlockedMs"] = waiting.blockedMs.rounded()
    }

    private func directStart(_ experiments: QueueExperiments) async {
        heading("start() called directly, without a queue", timeline: "start()")
        // Called on the main queue, where an app's own code runs.
        let start = await MainActor.run { experiments.startDirectly() }
        console.say(
            "  called on: \(start.callerLane); ran on: \(start.operationLane)"
                + " \(console.mark(start.ranOnCallingThread)); finished when start() returned:"
                + " \(start.finishedWhenStartReturned ? "yes" : "no") — synchronous, no new thread")
        measures["startRanOnCallingThread"] = start.ranOnCallingThread ? 1 : 0
    }

    /// The tutorial's warning, played: `start()` on an operation whose
    /// dependency has not finished. swift-corelibs-foundation stops the
    /// program ("receiver is not yet ready to execute"); Apple's raises an exception.
    private func startUnready() async {
        heading("start() on an operation that is not ready", timeline: "start-unready")
        console.say("  unzip depends on download, which has not run; calling unzip.start() now ends the program:")
        await MainActor.run {
            let download = BlockOperation {}
            let unzip = BlockOperation {}
            unzip.addDependency(download)
            unzip.start()
        }
    }

    private func severalBlocks(_ experiments: QueueExperiments) async {
        heading("One BlockOperation with several execution blocks", timeline: "blocks")
        let start = trace.now()
        let blocks = await experiments.severalBlocks()
        console.say(
            "  \(blocks.blocks) blocks of \(Int(blocks.blockMs)) ms ran on \(blocks.threads) thread\(blocks.threads == 1 ? "" : "s"), at most"
                + " \(blocks.maxAtOnce) at once, \(Int(blocks.totalMs)) ms in all")
        console.say(
            blocks.maxAtOnce == 1
                ? "  One after another, here: swift-corelibs-foundation runs them in turn. On Apple platforms they run"
                    + " concurrently and the whole would take about one block's time."
                : "  They overlapped, as they do on Apple platforms.")
        chart(since: start)
        measures["blockOperationThreads"] = Double(blocks.threads)
        measures["blockOperationMaxAtOnce"] = Double(blocks.maxAtOnce)
        measures["blockOperationMs"] = blocks.totalMs.rounded()
    }

    private func limits(_ experiments: QueueExperiments) async {
        heading("maxConcurrentOperationCount", timeline: "limits")
        console.say("  6 operations of 300 ms each")
        for limit in [1, 2, nil] as [Int?] {
            let result = await experiments.concurrencyLimit(limit)
            console.say(
                "  limit \(limit.map(String.init) ?? "default (none)"): at most \(result.maxAtOnce) at once,"
                    + " \(Int(result.totalMs)) ms")
            measures["limit\(limit.map(String.init) ?? "Default")MaxAtOnce"] = Double(result.maxAtOnce)
        }
        console.say(
            "  Never more than the limit; without one, each operation had a thread at once, as a phone's pool gives"
                + " blocking work up to 64 threads.")
    }
}
