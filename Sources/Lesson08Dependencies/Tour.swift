import Foundation
import LessonKit
import SlowNetwork

/// What to play, from the command line: `--variant broken|fixed|both` and
/// `--part chain,cycle,…` (default: everything).
struct TourPlan {
    enum Variant: String, CaseIterable {
        case broken, fixed, both
    }

    static let allParts = ["chain", "cancel", "cycle", "priority", "qos", "wait", "start", "blocks", "limit"]

    static let flags = [
        LessonOptions.ExtraFlag(
            name: "variant", takesValue: true,
            help: "broken (no dependencies, unchecked cycle), fixed, or both (default)"),
        LessonOptions.ExtraFlag(
            name: "part", takesValue: true,
            help: "only these parts, comma-separated: " + allParts.joined(separator: ",")),
    ]

    let variant: Variant
    let parts: [String]

    init(options: LessonOptions) throws(UsageError) {
        let variantName = options.extra["variant"] ?? "both"
        guard let variant = Variant(rawValue: variantName) else {
            throw UsageError("--variant takes broken, fixed or both, not '\(variantName)'")
        }
        self.variant = variant
        let parts = (options.extra["part"] ?? Self.allParts.joined(separator: ","))
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if let unknown = parts.first(where: { !Self.allParts.contains($0) }) {
            throw UsageError("--part: unknown part '\(unknown)' (parts: \(Self.allParts.joined(separator: ", ")))")
        }
        self.parts = parts
    }

    var showsBroken: Bool { variant != .fixed }
    var showsFixed: Bool { variant != .broken }
}

/// Step 8 as a story told in the terminal: each part runs real operations,
/// prints what this machine did, and leaves its numbers in the report.
final class Tour {
    let plan: TourPlan
    let run: CustomLessonRun
    let conditions: NetworkConditions
    private var measures: [String: Double] = [:]
    private var section = 0

    init(plan: TourPlan, run: CustomLessonRun) {
        self.plan = plan
        self.run = run
        var conditions = NetworkConditions()
        conditions.latency = (run.options.latencyMs ?? 500) / 1000
        conditions.jitter = 0.5
        conditions.seed = run.options.seed
        conditions.timeScale = run.options.speed
        conditions.offline = run.options.offline
        conditions.failRate = run.options.failRate
        self.conditions = conditions
    }

    private var console: LessonConsole { run.console }
    private var trace: OperationTrace { run.trace }
    /// The cycle is given this long (story seconds) to finish before we call it hung.
    private var cycleTimeout: Double { conditions.wallSeconds(2) }

    func play() async -> CustomLessonOutcome {
        console.say(
            "Lesson 08 · dependencies · seed \(conditions.seed) · speed \(String(format: "%g", run.options.speed))×")
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
        let features = QueueFeatures(trace: trace, wall: conditions.wallSeconds)
        if parts.contains("priority") { await priorities(features) }
        if parts.contains("qos") { await qualityOfService(features) }
        if parts.contains("wait") { await waiting(features) }
        if parts.contains("start") { await MainActor.run { directStart(features) } }
        if parts.contains("blocks") { await severalBlocks(features) }
        if parts.contains("limit") { await limits(features) }
        return CustomLessonOutcome(story: "software update, variant \(plan.variant.rawValue)", measures: measures)
    }

    /// A part's title on screen, and its short name on the timeline.
    private func heading(_ title: String, timeline label: String) {
        section += 1
        trace.event("\(section) \(label)")
        console.say("\n── \(section). \(title) ──")
    }

    private func chart(since start: Double) {
        console.say(
            OperationTrace.laneChart(trace.spans(since: start)).split(separator: "\n").map { "    " + $0 }
                .joined(separator: "\n"))
    }

    private func describe(_ steps: [SoftwareUpdate.Step], since start: Double) -> String {
        steps.map { "\($0.name) at \(Int($0.endMs - start)) ms (\($0.lane))" }.joined(separator: ", ")
    }

    // MARK: the chain

    private func chain(withDependencies: Bool) async {
        heading(
            withDependencies ? "With dependencies (the fix)" : "The update without dependencies (the bug)",
            timeline: withDependencies ? "dependencies" : "no dependencies")
        let update = SoftwareUpdate(conditions: conditions, trace: trace)
        console.say(
            withDependencies
                ? "  unzip.addDependency(download); install.addDependency(unzip) — install waits on the main queue"
                    + "\n  for an operation on the background queue"
                : "  install on OperationQueue.main; download and unzip on a background queue; no addDependency")
        console.say("  unzip takes \(Int(update.unzipSeconds * 1000)) ms (drawn from seed \(conditions.seed))")
        let start = trace.now()
        let operations = update.start(withDependencies: withDependencies)
        _ = await OperationWaiter.waitUntilFinished(operations, timeoutSeconds: 120)
        let steps = update.finishedSteps
        let inOrder = steps.map(\.name) == ["download", "unzip", "install"]
        let unzipHadPackage = steps.first { $0.name == "unzip" }?.hadInput ?? false
        console.say(
            "  finished: \(describe(steps, since: start))  \(console.mark(inOrder)) \(inOrder ? "in order" : "out of order")"
        )
        console.say(
            "  unzip \(unzipHadPackage ? "found the package" : "found no package: it started before the download finished")"
        )
        console.say("  install said: \"\(update.statusLabel.text ?? "")\"")
        await update.completionBlocksHaveRun()
        let completions = update.completionBlockLanes
        let onMain = completions.values.filter { $0 == "main queue" }.count
        if withDependencies {
            console.say(
                "  completionBlock ran on: "
                    + ["download", "unzip", "install"].map { "\($0) → \(completions[$0] ?? "?")" }.joined(
                        separator: ", ")
                    + (onMain == 0 ? " (never the main queue, not even for install)" : ""))
        }
        chart(since: start)
        let prefix = withDependencies ? "chain" : "chainNoDependencies"
        measures[prefix + "InOrder"] = inOrder ? 1 : 0
        measures[prefix + "UnzipHadPackage"] = unzipHadPackage ? 1 : 0
        measures[prefix + "Installed"] = steps.last?.name == "install" && steps.last?.hadInput == true ? 1 : 0
        if withDependencies {
            measures["chainInstallOnMainQueue"] = steps.first { $0.name == "install" }?.lane == "main queue" ? 1 : 0
            measures["completionBlocksOnMainQueue"] = Double(onMain)
        }
    }

    private func cancelledDependency() async {
        heading("A cancelled dependency does not hold back what depends on it", timeline: "cancelled")
        let update = SoftwareUpdate(conditions: conditions, trace: trace)
        let operations = update.startWithCancelledDownload()
        _ = await OperationWaiter.waitUntilFinished(operations, timeoutSeconds: 120)
        let steps = update.finishedSteps
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
        let update = SoftwareUpdate(conditions: conditions, trace: trace)
        console.say("  the tutorial's commented-out line switched on: download.addDependency(install)")
        let operations = update.startWithUncheckedCycle()
        let finishedInTime = await OperationWaiter.waitUntilFinished(operations, timeoutSeconds: cycleTimeout)
        let finished = operations.filter(\.isFinished).count
        let ready = operations.filter(\.isReady).count
        let waiting = update.backgroundQueue.operationCount
        console.say(
            "  after \(Int(cycleTimeout * 1000)) ms: \(finished) of 3 finished, \(ready) ready, the update queue still"
                + " holds \(waiting) — and no error, no log, nothing  \(console.mark(finishedInTime))")
        // Let it go, or it would wait for ever: a cancelled operation ignores its dependencies.
        trace.event("cycle cancelled")
        let releaseStart = trace.now()
        update.backgroundQueue.cancelAllOperations()
        for operation in operations { operation.cancel() }
        let released = await OperationWaiter.waitUntilFinished(operations, timeoutSeconds: 30)
        let ran = update.finishedSteps.count
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
        let update = SoftwareUpdate(conditions: conditions, trace: trace)
        do {
            _ = try update.startCheckingForCycles(withCycle: true)
            console.say("  enqueued: no cycle found \(console.mark(false))")
            measures["cycleDetected"] = 0
        } catch let error as DependencyCycleError {
            console.say("  refused before anything was enqueued \(console.mark(true))\n  \(error)")
            console.say("  the update queue holds \(update.backgroundQueue.operationCount) operations")
            measures["cycleDetected"] = 1
            measures["cycleLength"] = Double(error.names.count - 1)
        } catch {
            console.say("  unexpected error: \(error)")
        }
    }

    // MARK: the queue's other features

    private func priorities(_ features: QueueFeatures) async {
        heading("queuePriority on a suspended queue that runs one at a time", timeline: "priority")
        let order = await features.priorityOrder()
        let documented = ["veryHigh", "high", "normal", "low", "veryLow"]
        console.say("  added: \(QueueFeatures.priorities.map(\.0).joined(separator: ", ")); then isSuspended = false")
        console.say(
            "  ran:   \(order.joined(separator: ", "))  \(console.mark(order == documented))"
                + (order == documented ? " highest first, as documented" : " not the documented order"))
        measures["priorityOrderAsDocumented"] = order == documented ? 1 : 0
    }

    private func qualityOfService(_ features: QueueFeatures) async {
        heading("qualityOfService", timeline: "QoS")
        let cores = ProcessInfo.processInfo.activeProcessorCount
        console.say("  a .userInteractive and a .background queue, equal CPU-bound operations, added in turns")
        // More busy threads than cores, then one each: the difference shows when they compete for the CPU.
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first ?? "?"
        console.say("  (other work on this machine now: load average \(load) on \(cores) cores)")
        for (perQueue, label) in [(cores * 2, "contended"), (1, "one each")] {
            let race = await features.qualityOfServiceRace(operationsPerQueue: perQueue)
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
                measures["qosContendedBackgroundSlowdown"] = (ratio * 100).rounded() / 100
                measures["qosUserInteractiveNice"] = Double(race.userInteractiveNice.min() ?? 0)
                measures["qosBackgroundNice"] = Double(race.backgroundNice.max() ?? 0)
            } else {
                measures["qosOneEachBackgroundSlowdown"] = (ratio * 100).rounded() / 100
            }
        }
        console.say(
            "  Here libdispatch runs each QoS on threads with a different nice value, so QoS matters whenever"
                + "\n  threads compete for the CPU (with each other or with other programs), and not otherwise."
                + "\n  iOS also maps QoS to CPU priority, and to more (I/O, timer coalescing, which cores).")
    }

    private func waiting(_ features: QueueFeatures) async {
        heading("addOperations(_:waitUntilFinished: true)", timeline: "wait")
        let waiting = await features.addOperationsAndWait()
        console.say(
            "  called on \(waiting.waiterLane) with 3 operations of \(Int(conditions.wallSeconds(0.3) * 1000)) ms:"
                + " it blocked \(Int(waiting.blockedMs)) ms (they ran at most \(waiting.maxAtOnce) at once);"
                + " all finished when it returned: \(waiting.allFinishedWhenItReturned ? "yes" : "no")")
        console.say("  It blocks the calling thread: on the main queue that is step 1's frozen screen.")
        measures["waitUntilFinishedBlockedMs"] = waiting.blockedMs.rounded()
    }

    private func directStart(_ features: QueueFeatures) {
        heading("start() called directly, without a queue", timeline: "start()")
        let start = features.startDirectly()
        console.say(
            "  called on: \(start.callerLane); ran on: \(start.operationLane)"
                + " \(console.mark(start.ranOnCallingThread)); finished when start() returned:"
                + " \(start.finishedWhenStartReturned ? "yes" : "no") — synchronous, no new thread")
        measures["startRanOnCallingThread"] = start.ranOnCallingThread ? 1 : 0
    }

    private func severalBlocks(_ features: QueueFeatures) async {
        heading("One BlockOperation with several execution blocks", timeline: "blocks")
        let start = trace.now()
        let blocks = await features.severalBlocks()
        console.say(
            "  \(blocks.blocks) blocks of \(Int(blocks.blockMs)) ms ran on \(blocks.threads) thread\(blocks.threads == 1 ? "" : "s"), at most"
                + " \(blocks.maxAtOnce) at once, \(Int(blocks.totalMs)) ms in all")
        console.say(
            blocks.maxAtOnce == 1
                ? "  One after another, here: swift-corelibs-foundation runs them in turn. On Apple platforms they run"
                    + "\n  concurrently and the whole would take about one block's time."
                : "  They overlapped, as they do on Apple platforms.")
        chart(since: start)
        measures["blockOperationThreads"] = Double(blocks.threads)
        measures["blockOperationMaxAtOnce"] = Double(blocks.maxAtOnce)
        measures["blockOperationMs"] = blocks.totalMs.rounded()
    }

    private func limits(_ features: QueueFeatures) async {
        heading("maxConcurrentOperationCount", timeline: "limits")
        console.say("  6 operations of \(Int(conditions.wallSeconds(0.3) * 1000)) ms each")
        for limit in [1, 2, nil] as [Int?] {
            let result = await features.concurrencyLimit(limit)
            console.say(
                "  limit \(limit.map(String.init) ?? "default (none)"): at most \(result.maxAtOnce) at once,"
                    + " \(Int(result.totalMs)) ms")
            measures["limit\(limit.map(String.init) ?? "Default")MaxAtOnce"] = Double(result.maxAtOnce)
        }
        console.say(
            "  Never more than the limit; without one, Linux's thread pool grows slowly (about a thread a second).")
    }
}
