import DispatchSeam
import Foundation
import LessonSupport
import SlowNetwork
import TableKit
import TerminalKit
import UnseenSync

/// Everything one run needs.
// More than 12 stored properties: what a program hands one run, a property per thing the run is told.
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
    /// Play the story at `options.speed` story seconds per wall second, for a
    /// person watching; otherwise as fast as the machine allows. The figures
    /// are the same either way.
    public var paced: Bool
    /// The hang guard's limit: how much processor time the app may run, or how
    /// long in wall time every thread of it may stay blocked, without the story
    /// moving on, before the run gives up and says what was still busy.
    public var hangLimit: Duration = .seconds(30)
    /// Called on the main queue with the story's report once the requests in
    /// flight at its end have had their answers, just before the network is
    /// shut down: a program hands its report over here, so that a crash from
    /// what the shutdown fails is known to have come after the story.
    public var storyOver: (@Sendable (Report) -> Void)?
    /// Called on the main queue with the story's report just before the
    /// screen goes away at the end of the run, and with nil once it has gone:
    /// a program hands the report over for that moment, so that a crash in the
    /// controller's teardown (its `deinit`), which only the harness's end of the
    /// story sets off, is known to have come after the story.
    public var screenGoesAway: (@Sendable (Report?) -> Void)?
    /// Set by a program that plays the story as a device would (a step's
    /// executable, `lessons play`): a relaunch ends this process and starts a
    /// new one (`CarriedLaunch`). False, in a process that must go on (the
    /// tests'): a story that relaunches is played by `newProcesses`, or stops
    /// at its relaunch and says why; it never relaunches the app inside this
    /// process, where its hash seed, statics and memory would survive.
    public var relaunchesAsNewProcess = false
    /// How a process that must go on plays a story that relaunches the app:
    /// in processes of its own, each launch a new one (nil: it cannot).
    public var newProcesses: (@Sendable (ScenarioSetup) async -> ScenarioResult)?
    /// What the app's earlier process carried across the relaunch that started this one.
    public var carried: CarriedLaunch?

    public init(
        lesson: String, title: String, controller: any LessonController.Type, scenario: Scenario,
        options: LessonOptions = LessonOptions(), catalog: AppCatalog = .bundled(),
        cachesDirectory: URL? = nil,
        display: (@Sendable (ScreenFrame) -> Void)? = nil,
        paced: Bool = false
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
        self.paced = paced
    }
}

/// One screenful for a display: what is on screen, how each row is judged,
/// and the live counts for the status line.
public struct ScreenFrame: Sendable {
    /// When the frame was shown, in story milliseconds since the launch.
    public let storyMs: Double
    public let snapshot: ScreenSnapshot
    public let marks: [Int: String]
    public let status: String
    /// The script step that just ended, when this frame closes one (plain output prints those).
    public let finishedStep: String?

    public init(storyMs: Double, snapshot: ScreenSnapshot, marks: [Int: String], status: String, finishedStep: String?)
    {
        self.storyMs = storyMs
        self.snapshot = snapshot
        self.marks = marks
        self.status = status
        self.finishedStep = finishedStep
    }
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
        if !setup.relaunchesAsNewProcess, setup.scenario.relaunches, let newProcesses = setup.newProcesses {
            return await newProcesses(setup)
        }
        // Inside `ScenarioGate.holding` the gate is this task's already.
        let isAlone = ScenarioGate.isHeld
        return await withCheckedContinuation { (done: CheckedContinuation<ScenarioResult, Never>) in
            let start: @Sendable () -> Void = {
                ActiveRun(
                    setup: setup,
                    done: { result in
                        // Handed on as the harness's work: the run's `done` is called in the app's turn.
                        if !isAlone {
                            let saved = seam_leave_run()
                            ScenarioGate.shared.runEnded()
                            seam_restore(saved)
                        }
                        done.resume(returning: result)
                    }
                ).start()
            }
            if isAlone { DispatchQueue.main.async(execute: start) } else { ScenarioGate.shared.startOnMainQueue(start) }
        }
    }

    /// Why a run in a process that must go on stops at a relaunch it was given no new process for.
    static let relaunchRefused =
        "the story relaunches the app, and a relaunch is a new process, but this run is inside a process that must "
        + "go on and was given no way to start one (`ScenarioSetup.newProcesses`): it stops here rather than relaunch "
        + "the app in this process, where its hash seed, statics and memory would survive"
}

/// One run in progress. Lives on the main queue only, from `start()` to the
/// moment it hands its result back.
///
/// Each turn of the main queue it asks whether the app is idle (`AppActivity`);
/// once it is, it moves the story clock to the next thing due: a request's
/// answer, or the next frame, which plays the script and records what the
/// screen shows. Its turns count as the app's for the Dispatch seam (what the
/// app submits from them is the run's work); its own next turn does not.
private final class ActiveRun: @unchecked Sendable {
    private let setup: ScenarioSetup
    private let done: (ScenarioResult) -> Void
    private let seams: RunSeams
    private let app: LaunchedApp
    private var frames: FrameTrack
    private var script: ScriptCursor
    private var events = ScriptEvents()
    /// The rows each `slowDown` step slowed so far: a relaunch's new process slows them again.
    private var slowedRows: [[Int]] = []
    private var wall: WallTime
    /// Why the run cannot go on, once something has stopped it.
    private var stuck: String?
    private var phase = Phase.playing

    /// Where the run is between its start and the result handed back.
    private enum Phase {
        /// The script plays.
        case playing
        /// The story has ended; the report waits for one more main-queue turn (`finish`).
        case finishing
        /// The requests in flight when the story ended, and those the app
        /// starts after it, get the answers they are due, at their time, as on
        /// a device: the end of a story fails nothing the app would not have
        /// seen fail. For at most `answersAfterTheStory` of story time: then
        /// the app's process is over.
        case answeringLast(Ending)
        /// The network is shut down: what started after the story's end fails;
        /// the run closes once the app is idle again.
        case hearingFailures(Ending)
        case closed
    }

    /// What the run hands back, kept from the story's end until it closes.
    private struct Ending {
        var report: Report
        let requests: [Request]
        /// When the network is shut down at the latest.
        let shutdownDue: StoryTime
    }

    /// How long after the story the app's requests still get their answers
    /// (queued downloads that start as earlier ones end; a slow row's 10 s).
    private static let answersAfterTheStory = StoryTime.seconds(60)

    init(setup: ScenarioSetup, done: @escaping (ScenarioResult) -> Void) {
        self.setup = setup
        self.done = done
        seams = RunSeams(setup)
        let environment = LessonEnvironment(
            network: seams.network, catalogURL: seams.catalog.source, cachesDirectory: setup.cachesDirectory)
        let carried = setup.carried
        app = LaunchedApp(
            setup.controller, environment: environment, watcher: seams.tableWatcher,
            cellRequestsBefore: carried?.earlier.cellRequests ?? 0)
        frames = FrameTrack(iconURLs: seams.rowIcons)
        script = ScriptCursor(setup.scenario, from: carried?.nextStep ?? 0)
        wall = WallTime(
            pacedAt: setup.paced ? setup.options.speed : nil, hangLimit: setup.hangLimit,
            storyStart: carried?.storyTime ?? .zero)
        if let carried {
            events = carried.events
            if let keys = carried.keys { setup.scenario.keys?.carryOn(from: keys) }
            frames.carryOn(from: carried.frames)
            seams.tableWatcher.carryOn(from: carried.watcher)
        }
    }

    func start() {
        stuck = seams.begin()
        asTheApp {
            seams.clock.noteMainQueueThread()
            Instruments.current = seams.instruments
            seams.clock.whileMainThreadWaits = { [unowned self] in playWhileMainThreadWaits() }
            if stuck == nil { SwiftTaskActivity.startWatching() }
            if setup.carried != nil { return relaunched() }
            event("launch")
            noteLaunch()
            app.launch()
            // After the launch: an app may make its caches folder as it starts.
            seams.cachesFolder.watchReads()
            let icons = seams.rowIcons
            events.launched(firstScreenIcons: app.snapshot().rows.compactMap {
                icons.indices.contains($0.row) ? icons[$0.row] : nil
            })
            turn()
        }
    }

    /// Runs `body` as the app's work: what it submits to Dispatch is counted.
    private func asTheApp(_ body: () -> Void) {
        // In the race build the harness is not instrumented: this marks what the app does here (its launch, the
        // turns) as the main queue's in TSan's reports (`RaceReport`), as the instrumented harness's own frames do.
        unseen_frame_enter()
        defer { unseen_frame_exit() }
        let saved = seam_enter_run()
        body()
        seam_restore(saved)
    }

    /// Schedules the run's next turn on the main queue, as the harness's own
    /// work: after whatever the app has queued there, and not counted with it.
    private func nextTurn() {
        let saved = seam_leave_run()
        DispatchQueue.main.async { self.asTheApp { self.turn() } }
        seam_restore(saved)
    }

    // MARK: moving the story on

    /// One turn of the main queue: look, and move on once the app is idle.
    private func turn() {
        // The turn's locks and looks at the app's queues are the harness's: hidden from TSan, on a fiber of their
        // own, so they leave the main queue's short history in TSan to the app, whose code the turn calls as the
        // main queue's (`callingTheApp`).
        unseen_turn_begin()
        defer { unseen_turn_end() }
        switch phase {
        case .finishing, .closed: return
        case .playing, .answeringLast, .hearingFailures: break
        }
        seams.clock.noteMainQueueThread()
        if stuck != nil {
            switch phase {
            case .playing: return finish()
            case .answeringLast(let ending): return shutDown(ending)
            default: return close()
            }
        }
        let changes = seam_generation()
        switch seams.activity.look(mainThreadWaits: false) {
        case .busy(let reason):
            noteBusy(reason)
            // Work for the main queue runs before the next turn; work elsewhere
            // signals when it finishes or reaches the network. (The wait is cut
            // short now and then for the hang guard, and for work the seam
            // cannot see that needs the main queue.)
            if !seams.activity.needsTheMainQueue { seam_wait_for_change(changes, Self.waitSliceNs) }
            nextTurn()
        case .idle:
            wall.hangGuard.clear()
            if seams.activity.releaseHeldWork() { return nextTurn() }
            if case .answeringLast(let ending) = phase { return answerLast(ending) }
            if case .hearingFailures = phase { return close() }
            if events.measuresMemoryOnceIdle { measureMemoryAfterWarning() }
            moveOn()
        }
    }

    /// What the app still holds once it has done all it does about a memory
    /// warning, at the warning's instant: a handler may free memory in work
    /// of its own (a task that asks an actor to empty its cache).
    private func measureMemoryAfterWarning() {
        events.measuresMemoryOnceIdle = false
        let cells = app.table?.allCells ?? []
        let heldByCells = Set(cells.compactMap { $0.imageView.image.map(ObjectIdentifier.init) })
        events.liveImageBytesAfterWarning = seams.instruments.liveImageBytes(excluding: heldByCells)
    }

    /// The longest the main queue waits for a change before it takes a turn anyway.
    private static let waitSliceNs: Int64 = 50_000_000

    /// The app is idle: play the next thing due, an answer or a frame, whichever comes first.
    private func moveOn() {
        while true {
            let frameTime = frames.nextTime
            let due = seams.clock.nextDue.map { min($0, frameTime) } ?? frameTime
            if waitsToPace(until: due) { return }
            // Answers due at a frame's instant are played before it (their code
            // runs and the app is idle again) and the frame on a later turn.
            guard seams.clock.advance(to: due) == 0 && due == frameTime else { break }
            let cellsBefore = app.cellsProvided
            frame()
            // A frame that started no work (a pause, a settle that waits, a drag
            // over rows whose icons are there) left the app idle: the next one
            // can follow at once. A frame that asked the app for a cell takes a
            // turn of the main queue: the cell may have handed work to the main
            // actor (`Task { @MainActor in … }`), which no hook sees.
            guard isPlaying, wall.pacer == nil, !events.measuresMemoryOnceIdle, app.cellsProvided == cellsBefore,
                seams.activity.look(mainThreadWaits: false) == .idle, !seams.activity.releaseHeldWork()
            else { break }
        }
        if isPlaying { nextTurn() }
    }

    private var isPlaying: Bool { if case .playing = phase { true } else { false } }

    /// The main thread itself waits in the network (step 1's download in
    /// `cellForRowAt`): no frame can be drawn, so the story moves on from one
    /// answer to the next until the main thread's own has come. Frames that
    /// fall meanwhile are dropped, as they are on a phone.
    private func playWhileMainThreadWaits() {
        while !seams.clock.mainThreadIsReleased {
            if let verdict = wall.hangGuard.verdict {
                stuck = verdict
                seams.clock.shutDown()
                return
            }
            let changes = seam_generation()
            switch seams.activity.look(mainThreadWaits: true) {
            case .busy(let reason):
                noteBusy(reason)
                seam_wait_for_change(changes, Self.waitSliceNs)
            case .idle:
                wall.hangGuard.clear()
                if seams.activity.releaseHeldWork() { continue }
                guard let due = seams.clock.nextDue else { return }
                if let wait = wall.paceWait(until: due) { Thread.sleep(forTimeInterval: wait.seconds) }
                seams.clock.advance(to: due)
            }
        }
    }

    /// Records what keeps the clock waiting; past the hang limit the run ends.
    private func noteBusy(_ reason: String) {
        wall.hangGuard.note(reason)
        if let verdict = wall.hangGuard.verdict { stuck = verdict + "\n  " + seams.activity.whatIsBusy }
    }

    /// With pacing on, schedules a turn for when the wall clock catches up
    /// with `instant` and returns true; false when it is time already.
    private func waitsToPace(until instant: StoryTime) -> Bool {
        guard let wait = wall.paceWait(until: instant) else { return false }
        let saved = seam_leave_run()
        DispatchQueue.main.asyncAfter(deadline: .now() + .nanoseconds(Int(wait.nanoseconds))) {
            self.asTheApp { self.turn() }
        }
        seam_restore(saved)
        return true
    }

    // MARK: frames and the script

    private func frame() {
        let started = FrameWork.Reading.now
        let finished = frames.hasCommitted ? advanceScript() : nil
        let scripted = FrameWork.Reading.now
        // The main queue may have waited in the network meanwhile (step 1):
        // the screen shows what the frame did when the frame is done.
        let now = seams.clock.now
        let snapshot = app.snapshot()
        frames.commit(snapshot, at: now)
        // The frame that ends the script is shown by `finish`, once it is counted.
        if let display = setup.display, !script.isOver, frames.next % 2 == 0 || finished != nil {
            display(screenFrame(snapshot, finishedStep: finished))
        }
        frames.work.add(start: started, scripted: scripted, end: .now)
        if script.isOver { finish(lastStep: finished) }
    }

    /// Plays the script up to now; returns the step that finished, if one did.
    ///
    /// At most one step ends per frame, and the next one begins on the next
    /// frame: the frame that ends a step shows its outcome (a settled screen is
    /// committed, and counted by `timeToAllVisibleMs`, before the next drag
    /// moves it), as a user who waits for the screen sees it before scrolling.
    private func advanceScript() -> String? {
        guard let (step, begins) = script.stepUnderWay(at: seams.clock.now, table: app.table) else { return nil }
        if begins { begin(step) }
        guard advance(step, elapsed: script.elapsed(at: seams.clock.now)) else { return nil }
        script.stepEnded()
        return "\(step)"
    }

    private func begin(_ step: Scenario.Step) {
        guard let table = app.table else { return }
        seams.cachesFolder.drain()
        switch step {
        case .drag(let row, _), .fling(let row, _), .peek(let row, _):
            // A row past the end means "to the end": the table stops there, and
            // so does the gesture, at the same pace whatever the catalog's length.
            let gesture = Gesture(
                startOffset: table.contentOffset, targetOffset: min(max(0, row), table.maximumOffset))
            script.gesture = gesture
            let and = if case .peek = step { " and back" } else { "" }
            event("drag to row \(Int(gesture.targetOffset))\(and)")
            table.beginDragging()
            // Stamped after the delegate has heard of it (step 7 suspends its
            // queue there): what starts from now on started while scrolling.
            events.scrolls.began(at: seams.clock.now)
        case .memoryWarning:
            event("memory warning")
            seams.tableWatcher.memoryWarningDelivered()
            events.memoryWarning(requestsSoFar: seams.network.log.count)
            callingTheApp { app.controller?.didReceiveMemoryWarning() }
        case .goOffline:
            event("offline")
            seams.network.setOffline(true)
        case .goOnline:
            event("online")
            seams.network.setOffline(false)
        case .relaunch:
            event("relaunch")
            events.relaunch(requestsSoFar: seams.network.log.count)
            // Returns only if the new process could not be started, or may not be.
            stuck = setup.relaunchesAsNewProcess ? startNewProcess() : ScenarioRunner.relaunchRefused
        case .deleteCachesFolder:
            event("caches folder deleted")
            try? FileManager.default.removeItem(at: setup.cachesDirectory)
        case .slowDown(let rows):
            event("rows \(rows.first ?? 0)–\(rows.last ?? 0) slowed")
            slowDown(rows)
        case .pause, .settle:
            break
        }
    }

    private func slowDown(_ rows: [Int]) {
        slowedRows.append(rows)
        let icons = seams.rowIcons
        let slowed = rows.filter(icons.indices.contains).map { icons[$0] }
        seams.network.addRule(URLRule(urls: Set(slowed), behavior: .slow(setup.scenario.slowSeconds)))
    }

    /// Moves a step on; true when it is over.
    private func advance(_ step: Scenario.Step, elapsed: Double) -> Bool {
        guard let table = app.table else { return true }
        // Stamped before the delegate hears the scroll end (step 7 resumes its
        // queue there): what starts from then on started after the scrolling.
        let ending = { [self] in events.scrolls.ended(at: seams.clock.now) }
        switch step {
        case .drag(_, let seconds):
            return script.gesture?.drag(table, elapsed: elapsed, seconds: seconds, ending: ending) ?? true
        case .peek(_, let seconds):
            return script.gesture?.peek(table, elapsed: elapsed, seconds: seconds, ending: ending) ?? true
        case .fling(_, let seconds):
            let gliding = { [self] in events.scrolls.glided(at: seams.clock.now) }
            return script.gesture?.fling(table, elapsed: elapsed, seconds: seconds, gliding: gliding, ending: ending)
                ?? true
        case .pause(let seconds):
            return elapsed >= seconds
        case .settle(let timeout):
            // Every visible row shows its own icon, the time is up, or the app
            // has stopped: nothing loading, nothing that could start by itself.
            return frames.recorder.allVisibleShowOwnIcon(table.snapshot()) || elapsed >= timeout
                || seams.activity.hasStopped
        case .memoryWarning, .goOffline, .goOnline, .relaunch, .deleteCachesFolder, .slowDown:
            return true
        }
    }

    // MARK: a relaunch as a new process

    /// Ends this process and starts the app's next launch in a new one, with
    /// the story carried across; returns only if it cannot, with why.
    private func startNewProcess() -> String {
        let now = seams.clock.now
        let disk = seams.cachesFolder.figures()
        let earlier = setup.carried?.earlier ?? EarlierLaunches(diskCacheFilesAtStart: disk.diskCacheFilesAtStart)
        let writes = seam_main_queue_file_writes()
        // Keys write their steps as they come: the new process's keys go on from the scenario's own steps.
        let nextStep = script.isDrivenByKeys ? setup.scenario.steps.count : script.position + 1
        let carried = CarriedLaunch(
            storyNs: now.nanoseconds, nextStep: nextStep, events: events, frames: frames.recorder.carried,
            watcher: seams.tableWatcher.carried, keys: setup.scenario.keys?.carried, slowedRows: slowedRows,
            requests: seams.network.log.requests.map { $0.endingWithItsProcess(atMs: now.milliseconds) },
            offline: seams.network.isOffline, catalog: setup.catalog.source.path,
            earlier: EarlierLaunches(
                cellRequests: app.cellsProvided,
                mainThreadViolations: earlier.mainThreadViolations + seams.instruments.mainQueueViolations.count,
                diskCacheFilesAtStart: earlier.diskCacheFilesAtStart,
                diskReads: earlier.diskReads.flatMap { before in disk.diskReads.map { before + $0 } },
                diskReadFiles: earlier.diskReadFiles.flatMap { before in
                    disk.diskReadFiles.map { DiskReadFile.merged(before, $0) }
                },
                mainQueueFileWrites: earlier.mainQueueFileWrites + writes.files,
                longestMainQueueWriteNs: max(earlier.longestMainQueueWriteNs, writes.longest_stall_ns),
                requestsFromUnseenWork: earlier.requestsFromUnseenWork + seams.clock.requestsFromUnseenWork,
                downloadQueueLimit: setup.carried != nil ? earlier.downloadQueueLimit : seams.clock.firstQueueLimit,
                runWallMs: earlier.runWallMs + wall.sinceStart.milliseconds))
        seams.end()
        return carried.startNewProcess()
    }

    /// This process is the app's relaunch: the network takes over the story's
    /// requests and plug, the app launches on the same caches folder, and the
    /// frame that played the relaunch shows what it shows, as in the process
    /// before; then the story goes on.
    private func relaunched() {
        guard let carried = setup.carried else { return }
        seams.network.carryOver(carried.requests)
        seams.network.setOffline(carried.offline)
        for rows in carried.slowedRows { slowDown(rows) }
        noteLaunch()
        // Reads are watched from the launch on: the first process watched through to its end.
        seams.cachesFolder.watchReads()
        app.launch()
        let snapshot = app.snapshot()
        frames.commit(snapshot, at: seams.clock.now)
        if let display = setup.display { display(screenFrame(snapshot, finishedStep: "\(Scenario.Step.relaunch)")) }
        if script.isOver { return finish() }
        nextTurn()
    }

    // MARK: the end

    /// `lastStep`: the script's step the last frame finished, shown with the final counts.
    private func finish(lastStep: String? = nil) {
        guard isPlaying else { return }
        phase = .finishing
        frames.recorder.finish()
        // The last frame is counted only now: the screen shows the counts the report will.
        if let display = setup.display { display(screenFrame(app.snapshot(), finishedStep: lastStep)) }
        event("end")
        if stuck == nil { stuck = fetchesKeptForEver() }
        var report = Report(
            measuring: setup, seams: seams, app: app, frames: frames, events: events, wall: wall, stuck: stuck,
            earlier: setup.carried?.earlier)
        // A teardown runs only once nothing holds the controller: if it crashes, the controller was being freed.
        var beingFreed = report
        beingFreed.controllerFreed = true
        setup.screenGoesAway?(beingFreed)
        app.retire()
        setup.screenGoesAway?(nil)
        // One more turn of the main queue, so work already queued there can
        // drop its references, then ask whether the last controller is gone.
        let saved = seam_leave_run()
        DispatchQueue.main.async { [self] in
            report.controllerFreed = app.retiredControllerIsFreed
            // The requests as the story ends, before their last answers come.
            phase = .answeringLast(
                Ending(
                    report: report, requests: seams.network.log.inStoryOrder,
                    shutdownDue: seams.clock.now + Self.answersAfterTheStory))
            asTheApp { turn() }
        }
        seam_restore(saved)
    }

    /// The app is idle after the story: the next answer due to a request in
    /// flight is played, at its time, as the story's were (what the app does
    /// with it, a completion that calls a controller that is gone, runs in
    /// every run, not as the threads' timing has it). Once none is in flight,
    /// or its time is up, the network is shut down.
    private func answerLast(_ ending: Ending) {
        guard seams.network.counts.inFlight > 0, let due = seams.clock.nextDue, due <= ending.shutdownDue else {
            return shutDown(ending)
        }
        seams.clock.advance(to: due)
        nextTurn()
    }

    /// The story's report is handed over, then the network is shut down: what
    /// the app started after the story fails; the run closes once it is idle.
    private func shutDown(_ ending: Ending) {
        phase = .hearingFailures(ending)
        setup.storyOver?(ending.report)
        seams.network.shutdown()
        nextTurn()
    }

    /// Ends the run once the app is idle after the shutdown: the result goes back.
    private func close() {
        guard case .hearingFailures(let ending) = phase else { return }
        phase = .closed
        var report = ending.report
        report.clock.stuck = report.clock.stuck ?? stuck
        seams.end()
        SwiftTaskActivity.stopWatching()
        if setup.cachesDirectoryIsScratch { try? FileManager.default.removeItem(at: setup.cachesDirectory) }
        Instruments.current = nil
        var timeline = Timeline()
        timeline.title = "Lesson \(setup.lesson) · \(setup.title) · \(setup.scenario.name)"
        timeline.caption = Self.caption(report)
        timeline.durationMs = report.durationMs
        timeline.screen = frames.recorder.screen
        timeline.allVisibleMs = report.timeToAllVisibleMs
        timeline.stalls = frames.recorder.stalls
        timeline.events = events.timeline
        timeline.requests = ending.requests
        done(ScenarioResult(report: report, timeline: timeline))
    }

    /// Fetches still in flight at the end with nothing of theirs due: no
    /// answer will ever end them, and the clock would keep them for good.
    private func fetchesKeptForEver() -> String? {
        let fetches = seams.clock.tasksInFlight
        guard fetches > 0, seams.clock.deliveriesPending == 0 else { return nil }
        let waiting = seams.network.log.requests.filter { $0.endMs == nil && $0.thread == Request.noThread }
        let named = waiting.prefix(3).map { request in
            let url = TerminalText.fitted(request.url, to: 60, padded: false)
            let length = request.url.count > 60 ? " (\(request.url.count) characters)" : ""
            return "\(url)\(length), since \(Int(request.startMs)) ms"
        }
        return "\(counted(fetches, "request")) in flight with nothing of \(fetches == 1 ? "it" : "theirs") due, "
            + "which the story clock would keep for ever" + (named.isEmpty ? "" : ": " + named.joined(separator: "; "))
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

    /// The app is about to launch: what it finds (the files in its caches folder) and the requests so far.
    private func noteLaunch() {
        events.launching(
            atMs: seams.clock.now.milliseconds, requestsSoFar: seams.network.counts.requests,
            diskCacheFiles: CacheFolder.files(in: setup.cachesDirectory).count)
    }

    private func event(_ label: String) {
        events.note(label, atMs: seams.clock.now.milliseconds)
    }

    private func screenFrame(_ snapshot: ScreenSnapshot, finishedStep: String?) -> ScreenFrame {
        let recorder = frames.recorder
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
        let counts = seams.network.counts
        let status = [
            "requests \(counts.requests) (\(counts.uniqueURLs) icons, \(counts.duplicateRequests) dup) · in flight \(counts.inFlight)",
            "stall max \(Int(recorder.figures.maxMainStallMs)) ms · dropped \(recorder.figures.droppedFrames) · "
                + "wrong-icon frames \(recorder.figures.wrongImageFrames)"
                + (seams.network.isOffline ? " · OFFLINE" : ""),
        ].joined(separator: "\n")
        return ScreenFrame(
            storyMs: seams.clock.now.milliseconds, snapshot: snapshot, marks: marks, status: status, finishedStep: finishedStep)
    }
}
