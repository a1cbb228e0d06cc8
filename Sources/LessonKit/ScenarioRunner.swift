import Foundation
import SlowNetwork
import TableKit

/// Everything one run needs.
public struct ScenarioSetup: Sendable {
    public var lesson: String
    public var title: String
    public var controller: any LessonController.Type
    public var scenario: Scenario
    public var options: LessonOptions
    public var catalog: AppCatalog
    public var cachesDirectory: URL
    /// Whether `cachesDirectory` is a scratch folder made for this run, removed when it ends.
    public let cachesDirectoryIsScratch: Bool
    /// Called on the main queue with each screenful to draw (nil: draw nothing).
    public var display: (@Sendable (ScreenFrame) -> Void)?

    public init(
        lesson: String, title: String, controller: any LessonController.Type, scenario: Scenario,
        options: LessonOptions = LessonOptions(), catalog: AppCatalog = .bundled(),
        cachesDirectory: URL? = nil,
        display: (@Sendable (ScreenFrame) -> Void)? = nil
    ) {
        self.lesson = lesson
        self.title = title
        self.controller = controller
        self.scenario = scenario
        self.options = options
        self.catalog = catalog
        self.cachesDirectory =
            cachesDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("OperationLessons-\(UUID().uuidString)")
        self.cachesDirectoryIsScratch = cachesDirectory == nil
        self.display = display
    }
}

/// One screenful for a display: what is on screen, how each row is judged,
/// and the live counts for the status line.
public struct ScreenFrame: Sendable {
    public let snapshot: ScreenSnapshot
    public let marks: [Int: String]
    public let status: String
    /// The script step that just ended, when this frame closes one (plain output prints those).
    public let finishedStep: String?
}

/// A finished run: its report and its timeline.
public struct ScenarioResult: Sendable {
    public let report: Report
    public let timeline: Timeline
}

/// Plays a scenario against a controller and measures it. Works the same in
/// an executable (whose top-level `await` keeps the main queue running) and
/// under Swift Testing (whose runner drains the main queue): the caller awaits,
/// the run happens on the main queue.
public enum ScenarioRunner {
    public static func run(_ setup: ScenarioSetup) async -> ScenarioResult {
        await ScenarioGate.shared.enter()
        let result = await withCheckedContinuation { (done: CheckedContinuation<ScenarioResult, Never>) in
            DispatchQueue.main.async {
                ActiveRun(setup: setup, done: { done.resume(returning: $0) }).start()
            }
        }
        await ScenarioGate.shared.leave()
        return result
    }

    /// Runs `body` while no scenario runs in this process, for a test that
    /// drives operation queues itself. On Linux, operation queues and Swift's
    /// task executor share libdispatch's few worker threads; downloads blocking
    /// them beside a scenario delay its operations, which its `settle` then takes
    /// for "nothing more is loading" (seen: a relaunch scenario ending before
    /// its first download started).
    public static func exclusively<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await ScenarioGate.shared.enter()
        do {
            let result = try await body()
            await ScenarioGate.shared.leave()
            return result
        } catch {
            await ScenarioGate.shared.leave()
            throw error
        }
    }
}

/// One run in progress. Lives on the main queue only, from `start()` to the
/// moment it hands its result back.
private final class ActiveRun: @unchecked Sendable {
    private let setup: ScenarioSetup
    private let done: (ScenarioResult) -> Void
    private let network: SlowNetwork
    private let instruments = Instruments()
    private let environment: LessonEnvironment
    private let recorder: FrameRecorder
    private var clock: FrameClock?
    private var controller: (any LessonController)?
    private var retiredControllers: [() -> Bool] = []

    private var stepIndex = 0
    private var stepStartStory: Double?
    private var stepStartMs = 0.0
    private var stepStartOffset = 0.0
    /// Where the current drag or fling ends: its row, clamped to the end of the table.
    private var stepTargetOffset = 0.0
    /// Story time this settle step spent while the app handled a body it got,
    /// which does not count toward the step's limit; the frame it was last
    /// looked at; and when the step ran out of time, once it has.
    private var settleHandlingStory = 0.0
    private var settleLastFrameStory = 0.0
    private var settleOutOfTimeMs: Double?
    /// The story time of the frame being drawn: a frame happens at one instant,
    /// so a step that ends and the step that follows it see the same clock.
    private var frameStoryNow = 0.0
    private var frameWork = FrameWork()
    private var launchMs = 0.0
    /// The icon URLs of the rows on the first screen, for the physical limit.
    private var firstScreenIcons: [String] = []
    private var frameCount = 0
    private var events: [Timeline.Event] = []
    private var memoryWarnings = 0
    private var liveImageBytesAfterWarning: Int?
    private var requestsAtRelaunch: Int?
    /// From the moment the finger touched down until the table came to rest.
    private var scrollStartMs: Double?
    private var scrolls: [(startMs: Double, endMs: Double)] = []
    private var measuresOfRetired: [String: Double] = [:]
    private let workerProbe = WorkerProbe()

    init(setup: ScenarioSetup, done: @escaping (ScenarioResult) -> Void) {
        self.setup = setup
        self.done = done
        var conditions = NetworkConditions()
        conditions.latency = (setup.options.latencyMs ?? 500) / 1000
        conditions.timeScale = setup.options.speed
        conditions.seed = setup.options.seed
        conditions.failRate = setup.options.failRate
        conditions.offline = setup.options.offline || setup.scenario.startsOffline
        conditions.jitter = setup.scenario.jitter
        conditions.rules = setup.scenario.rules(for: setup.catalog)
        network = SlowNetwork(conditions: conditions, isMainQueue: { MainQueue.isCurrent })
        environment = LessonEnvironment(
            network: network, catalogURL: setup.catalog.source, cachesDirectory: setup.cachesDirectory)
        recorder = FrameRecorder(iconURLs: setup.catalog.entries.map(\.icon))
    }

    private func storyTime(atMs ms: Double) -> Double { ms / 1000 * setup.options.speed }

    func start() {
        Instruments.current = instruments
        launchMs = network.now()
        event("launch")
        launchController()
        let firstScreen = tableSnapshot()
        firstScreenIcons = firstScreen.rows.compactMap {
            setup.catalog.entries.indices.contains($0.row) ? setup.catalog.entries[$0.row].icon : nil
        }
        recorder.launched(atMs: launchMs, firstCommitMs: network.now(), snapshot: firstScreen)
        let clock = FrameClock { [self] in frame() }
        self.clock = clock
        clock.start()
    }

    private func launchController() {
        let controller = setup.controller.init(environment: environment)
        self.controller = controller
        controller.viewDidLoad()
        controller.tableView.reloadData()
    }

    private func tableSnapshot() -> ScreenSnapshot {
        controller?.tableView.snapshot() ?? ScreenSnapshot(contentOffset: 0, rows: [])
    }

    private func frame() {
        let started = ContinuousClock.now
        let nowMs = network.now()
        frameStoryNow = storyTime(atMs: nowMs)
        let finished = advanceScript()
        let scripted = ContinuousClock.now
        let snapshot = tableSnapshot()
        recorder.commit(atMs: nowMs, snapshot: snapshot)
        frameCount += 1
        if let display = setup.display, frameCount % 2 == 0 || finished != nil {
            display(screenFrame(snapshot, finishedStep: finished))
        }
        frameWork.add(total: ContinuousClock.now - started, recording: ContinuousClock.now - scripted)
        if stepIndex == setup.scenario.steps.count { finish() }
    }

    /// Plays the script up to now; returns the step that finished, if one did.
    ///
    /// At most one step ends per frame, and the next one begins on the next
    /// frame: the frame that ends a step shows its outcome (a settled screen is
    /// committed, and counted by `timeToAllVisibleMs`, before the next drag
    /// moves it), as a user who waits for the screen sees it before scrolling.
    private func advanceScript() -> String? {
        guard stepIndex < setup.scenario.steps.count else { return nil }
        let step = setup.scenario.steps[stepIndex]
        if stepStartStory == nil {
            stepStartStory = frameStoryNow
            stepStartMs = network.now()
            stepStartOffset = controller?.tableView.contentOffset ?? 0
            settleHandlingStory = 0
            settleLastFrameStory = frameStoryNow
            settleOutOfTimeMs = nil
            begin(step)
        }
        guard advance(step, elapsed: frameStoryNow - (stepStartStory ?? frameStoryNow)) else { return nil }
        stepIndex += 1
        stepStartStory = nil
        return "\(step)"
    }

    private func begin(_ step: Scenario.Step) {
        guard let table = controller?.tableView else { return }
        switch step {
        case .drag(let row, _), .fling(let row, _):
            // A row past the end means "to the end": the table stops there, and
            // so does the gesture, at the same pace whatever the catalog's length.
            stepTargetOffset = min(max(0, row), table.maximumOffset)
            event("drag to row \(Int(stepTargetOffset))")
            table.beginDragging()
            // Stamped after the delegate has heard of it (step 7 suspends its
            // queue there): what starts from now on started while scrolling.
            scrollStartMs = network.now()
        case .memoryWarning:
            event("memory warning")
            memoryWarnings += 1
            controller?.didReceiveMemoryWarning()
            let heldByCells = Set(table.allCells.compactMap { $0.imageView.image.map(ObjectIdentifier.init) })
            liveImageBytesAfterWarning = instruments.liveImageBytes(excluding: heldByCells)
        case .goOffline:
            event("offline")
            network.setOffline(true)
        case .goOnline:
            event("online")
            network.setOffline(false)
        case .relaunch:
            event("relaunch")
            retireController()
            requestsAtRelaunch = network.log.count
            launchController()
        case .deleteCachesFolder:
            event("caches folder deleted")
            try? FileManager.default.removeItem(at: setup.cachesDirectory)
        case .pause, .settle:
            break
        }
    }

    /// Moves a step on; true when it is over.
    private func advance(_ step: Scenario.Step, elapsed: Double) -> Bool {
        guard let table = controller?.tableView else { return true }
        switch step {
        case .drag(_, let seconds):
            let progress = min(1, elapsed / max(seconds, 0.001))
            table.setContentOffset(stepStartOffset + (stepTargetOffset - stepStartOffset) * progress)
            if progress >= 1 {
                scrollEnded()
                table.endDragging(willDecelerate: false)
            }
            return progress >= 1
        case .fling(_, let seconds):
            // The finger covers 40 % of the way in the first 25 % of the time,
            // then the content glides, slowing down, the rest of the way.
            let progress = min(1, elapsed / max(seconds, 0.001))
            let distance = stepTargetOffset - stepStartOffset
            if progress < 0.25 {
                table.setContentOffset(stepStartOffset + distance * 0.4 * progress / 0.25)
                return false
            }
            if table.isDragging { table.endDragging(willDecelerate: true) }
            let glide = (progress - 0.25) / 0.75
            table.setContentOffset(stepStartOffset + distance * (0.4 + 0.6 * (1 - (1 - glide) * (1 - glide))))
            if progress >= 1 {
                scrollEnded()
                table.endDecelerating()
            }
            return progress >= 1
        case .pause(let seconds):
            return elapsed >= seconds
        case .settle(let timeout):
            if recorder.allVisibleShowOwnIcon(table.snapshot()) { return true }
            let now = network.now()
            let activity = network.activity
            // The limit is story time, and the story is the network's: on a
            // slow machine (Thread Sanitizer, busy cores) the app's own work
            // takes longer, and at 10× each wall millisecond of it is ten of
            // the story's. So the time the app spends handling a body it got
            // (decoding it, writing it to disk) does not count. (In CI, under
            // Thread Sanitizer, step 7's standard scenario made 23 of its 28
            // requests: its scroll settled after 5 of 7 rounds of three.)
            let handling = network.isHandlingABody()
            if handling { settleHandlingStory += frameStoryNow - settleLastFrameStory }
            settleLastFrameStory = frameStoryNow
            if elapsed - settleHandlingStory >= timeout || elapsed >= 3 * timeout {
                // Out of time. A busy machine slows the app, not the story:
                // while a download is overdue (its thread waits for a CPU; it
                // ends as soon as it gets one) it waits for it; while icons are
                // still arriving (one in the last two latencies) or being
                // handled it waits on, up to three times the limit (counting
                // all time); and it ends only once the worker pool has been
                // free since (`WorkerProbe`), so downloads starved by other
                // work in this process are not cut off either. (Seen with both
                // cores busy: a relaunch cut off at three times its limit with
                // 4 downloads overdue, 3 of 8 icons shown.)
                let outOfTimeMs = settleOutOfTimeMs ?? now
                settleOutOfTimeMs = outOfTimeMs
                if network.hasOverdueRequests(atMs: now) { return false }
                let speed = setup.options.speed
                let arriving = now - activity.lastDeliveryMs < max(100, 2 * network.conditions.latency * 1000 / speed)
                if (arriving || handling) && elapsed < 3 * timeout { return false }
                return workerProbe.poolWasFree(since: outOfTimeMs, nowMs: now)
            }
            // Nothing loading, and nothing started or ended for a moment: the app has given up.
            // Quiet since this step began, not only since the last request:
            // right after a relaunch or a scroll the new downloads may not have
            // started yet (a slow machine, Thread Sanitizer), and the quiet
            // before them must not count as "the app has given up".
            // And quiet while the app was not handling a body it got (its next
            // request may come once it has), and while the worker pool was free
            // (`WorkerProbe`): queued downloads had their chance.
            let quietStartMs = max(activity.lastChangeMs, stepStartMs)
            guard activity.inFlight == 0, now - quietStartMs > max(100, 250 / setup.options.speed), !handling else {
                return false
            }
            return workerProbe.poolWasFree(since: quietStartMs, nowMs: now)
        case .memoryWarning, .goOffline, .goOnline, .relaunch, .deleteCachesFolder:
            return true
        }
    }

    /// Stamped before the delegate hears of it (step 7 resumes its queue
    /// there): what starts from now on started after the scrolling.
    private func scrollEnded() {
        guard let start = scrollStartMs else { return }
        scrolls.append((start, network.now()))
        scrollStartMs = nil
    }

    /// The screen goes away: the table stops asking its data source (as a
    /// view off-window does), and the harness lets go of the controller.
    /// Whether it is then freed says if anything else still holds it.
    private func retireController() {
        guard let controller else { return }
        for (key, value) in controller.measures { measuresOfRetired[key, default: 0] += value }
        controller.tableView.dataSource = nil
        controller.tableView.delegate = nil
        weak let retired = controller
        retiredControllers.append { retired == nil }
        self.controller = nil
    }

    private func finish() {
        clock?.stop()
        clock = nil
        recorder.finish()
        event("end")
        var report = measuredReport()
        retireController()
        // One more turn of the main queue, so work already queued there can
        // drop its references, then ask whether the last controller is gone.
        DispatchQueue.main.async { [self] in
            report.controllerFreed = retiredControllers.last?() ?? false
            report.durationMs = network.now()
            network.shutdown()
            if setup.cachesDirectoryIsScratch { try? FileManager.default.removeItem(at: setup.cachesDirectory) }
            Instruments.current = nil
            var timeline = Timeline()
            timeline.title = "Lesson \(setup.lesson) · \(setup.title) · \(setup.scenario.name)"
            timeline.caption = Self.caption(report)
            timeline.speed = setup.options.speed
            timeline.durationMs = report.durationMs
            timeline.screen = recorder.screen
            timeline.allVisibleMs = report.timeToAllVisibleMs.map { $0 + launchMs }
            timeline.stalls = recorder.stalls
            timeline.events = events
            timeline.requests = network.log.requests
            done(ScenarioResult(report: report, timeline: timeline))
        }
    }

    /// The numbers a timeline prints under its title.
    private static func caption(_ report: Report) -> String {
        var parts = [
            "\(report.requests) requests for \(report.uniqueURLs) icons",
            "\(report.duplicateRequests) duplicates in flight",
            "longest main-queue stall \(Int(report.maxMainStallMs.rounded())) ms",
            "\(report.wrongImageFrames) frames with another row's icon",
        ]
        if let ms = report.timeToAllVisibleMs { parts.append("all visible icons after \(Int(ms.rounded())) ms") }
        return parts.joined(separator: " · ")
    }

    private func measuredReport() -> Report {
        let log = network.log
        let snapshot = tableSnapshot()
        var report = Report()
        report.lesson = setup.lesson
        report.title = setup.title
        report.scenario = setup.scenario.name
        report.seed = setup.options.seed
        report.speed = setup.options.speed
        report.latencyMs = network.conditions.latency * 1000
        report.requests = log.count
        report.uniqueURLs = log.uniqueURLs
        report.duplicateRequests = log.duplicateRequests
        report.failedRequests = log.failed
        report.bytes = log.bytes
        report.maxInFlight = log.maxInFlight
        report.requestsOnMainQueue = log.requests.filter { $0.thread == "main queue" }.count
        report.requestsAfterRelaunch = requestsAtRelaunch.map { log.count - $0 }
        report.requestsStartedWhileScrolling =
            log.requests.filter { request in
                scrolls.contains { request.startMs > $0.startMs && request.startMs < $0.endMs }
            }.count
        report.frames = recorder.frames
        report.maxMainStallMs = recorder.maxStallMs
        report.droppedFrames = recorder.droppedFrames
        report.blankFrames = recorder.blankFrames
        report.placeholderFrames = recorder.placeholderFrames
        report.wrongImageFrames = recorder.wrongImageFrames
        report.timeToAllVisibleMs = recorder.timeToAllVisibleMs
        report.downloadQueueLimit = controller.flatMap { PhysicalLimit.queueLimit(of: $0) }
        if !firstScreenIcons.isEmpty {
            let wallMs = firstScreenIcons.map {
                network.conditions.wallSeconds(network.plannedStorySeconds(for: $0)) * 1000
            }
            report.idealTimeToAllVisibleMs = PhysicalLimit.makespan(
                wallMs, lanes: report.downloadQueueLimit ?? wallMs.count)
        }
        report.visibleRowsAtEnd = snapshot.rows.count
        report.ownIconsAtEnd = snapshot.rows.filter { recorder.state(of: $0) == .own }.count
        report.memoryWarnings = memoryWarnings
        report.liveImageBytes = liveImageBytesAfterWarning
        report.mainThreadViolations = instruments.mainQueueViolations.count
        report.cellsCreated = controller?.tableView.cellsCreated ?? 0
        report.frameWorkMeanMs = frameWork.meanMs
        report.frameWorkMaxMs = frameWork.maxMs
        report.frameRecordingMeanMs = frameWork.recordingMeanMs
        report.diskCacheFiles =
            (try? FileManager.default.contentsOfDirectory(atPath: setup.cachesDirectory.path))?.count ?? 0
        report.measures = measuresOfRetired.merging(controller?.measures ?? [:], uniquingKeysWith: +)
        return report
    }

    private func event(_ label: String) {
        events.append(Timeline.Event(ms: network.now(), label: label))
    }

    private func screenFrame(_ snapshot: ScreenSnapshot, finishedStep: String?) -> ScreenFrame {
        var marks: [Int: String] = [:]
        for row in snapshot.rows {
            marks[row.row] =
                switch recorder.state(of: row) {
                case .own: "✓ its icon"
                case .placeholder: "… placeholder"
                case .blank: "  (blank)"
                case .wrong(let other?): "✗ row \(other)'s icon!"
                case .wrong(nil): "✗ not its icon!"
                }
        }
        // Live counts, not the log: copying the log every frame would make a
        // frame cost grow with every request the run has made.
        let counts = network.counts
        let status = [
            "requests \(counts.requests) (\(counts.uniqueURLs) icons, \(counts.duplicateRequests) dup) · in flight \(counts.inFlight)",
            "stall max \(Int(recorder.maxStallMs)) ms · dropped \(recorder.droppedFrames) · wrong-icon frames \(recorder.wrongImageFrames)"
                + (network.isOffline ? " · OFFLINE" : ""),
        ].joined(separator: "\n")
        return ScreenFrame(snapshot: snapshot, marks: marks, status: status, finishedStep: finishedStep)
    }
}
