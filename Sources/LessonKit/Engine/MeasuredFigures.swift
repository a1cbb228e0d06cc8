import DispatchSeam
import SlowNetwork
import TableKit

// Each group of a scenario's report, read at its end from what the run kept.

extension Report {
    /// A scenario's report as its story ends, group by group from what the
    /// run kept; `controllerFreed` is known only a main-queue turn later.
    /// `earlier`: the counts of the app's earlier processes, when a relaunch started this one.
    init(
        measuring setup: ScenarioSetup, seams: RunSeams, app: LaunchedApp, frames: FrameTrack, events: ScriptEvents,
        wall: WallTime, stuck: String?, earlier: EarlierLaunches? = nil
    ) {
        self.init()
        let (network, clock, watcher) = (seams.network, seams.clock, seams.tableWatcher)
        let log = network.log
        run = RunFigures(
            lesson: setup.lesson, title: setup.title, scenario: setup.scenario.name, seed: setup.options.seed,
            speed: setup.options.speed, latencyMs: network.conditions.latency * 1000, durationMs: clock.now.milliseconds,
            launches: LaunchFigures.each(of: events.launches, requests: log.count))
        self.network = NetworkFigures(log, events: events)
        let downloadQueueLimit = earlier.map(\.downloadQueueLimit) ?? clock.firstQueueLimit
        screen = FrameFigures(frames.recorder, endScreen: app.snapshot(), downloadQueueLimit: downloadQueueLimit)
        self.idealTimeToAllVisibleMs = FrameFigures.idealTimeToAllVisibleMs(
            firstScreenIcons: events.firstScreenIcons, network: network, downloadQueueLimit: self.downloadQueueLimit,
            requests: self.network)
        self.app = AppFigures(events: events, watcher: watcher, log: log, instruments: seams.instruments, app: app)
        disk = seams.cachesFolder.figures()
        if let earlier {
            self.app.mainThreadViolations += earlier.mainThreadViolations
            disk.diskCacheFilesAtStart = earlier.diskCacheFilesAtStart
            disk.diskReads = earlier.diskReads.flatMap { before in disk.diskReads.map { before + $0 } }
            disk.diskReadFiles = earlier.diskReadFiles.flatMap { before in
                disk.diskReadFiles.map { DiskReadFile.merged(before, $0) }
            }
        }
        machine = WallFigures(
            runWallMs: wall.sinceStart.milliseconds + (earlier?.runWallMs ?? 0), frameWorkMeanWallMs: frames.work.meanMs,
            frameWorkMaxWallMs: frames.work.maxMs, frameRecordingMeanWallMs: frames.work.recordingMeanMs,
            frameWorkMeanCPUMs: frames.work.cpuMeanMs, frameRecordingMeanCPUMs: frames.work.recordingCPUMeanMs,
            cellForRowAtWallMs: watcher.cellForRowAtWall.milliseconds)
        self.network.iconRequests = IconRequests(
            requests: log.requests, shownMs: watcher.shownMs, rowIcons: seams.rowIcons,
            memoryWarningsMs: watcher.warningsMs, scrolls: events.scrolls.withGlides)
        let mainQueueWrites = seam_main_queue_file_writes()
        disk.mainQueueFileWrites = mainQueueWrites.files + (earlier?.mainQueueFileWrites ?? 0)
        machine.mainQueueWriteStallWallMs =
            Double(max(mainQueueWrites.longest_stall_ns, earlier?.longestMainQueueWriteNs ?? 0)) / 1e6
        self.clock = ClockFigures(
            clockNotes: Self.clockNotes(
                requestsFromUnseenWork: clock.requestsFromUnseenWork + (earlier?.requestsFromUnseenWork ?? 0)),
            stuck: stuck)
    }

    /// What the clock could not see in time, in words (empty: the run is exact).
    private static func clockNotes(requestsFromUnseenWork: Int) -> [String] {
        guard requestsFromUnseenWork > 0 else { return [] }
        return [
            "\(counted(requestsFromUnseenWork, "request")) came from work the harness does not see (a Thread of "
                + "the app's own, not Dispatch or an OperationQueue), which the clock cannot wait for until it "
                + "asks the network"
        ]
    }
}

extension LaunchFigures {
    /// Each launch's figures: its requests are those made until the next launch, or the end.
    static func each(of launches: [ScriptEvents.Launch], requests: Int) -> [LaunchFigures] {
        launches.indices.map { index in
            let until = launches.indices.contains(index + 1) ? launches[index + 1].requestsBefore : requests
            let launch = launches[index]
            return LaunchFigures(
                atMs: launch.ms, requests: until - launch.requestsBefore, diskCacheFiles: launch.diskCacheFiles)
        }
    }
}

extension NetworkFigures {
    /// From the request log, the counts at the script's last relaunch and
    /// memory warning, and when the user scrolled.
    init(_ log: RequestLog, events: ScriptEvents) {
        self.init()
        requests = log.count
        uniqueURLs = log.uniqueURLs
        duplicateRequests = log.duplicateRequests
        failedRequests = log.failed
        bytes = log.bytes
        uniqueBytes = Dictionary(log.requests.map { ($0.url, $0.bytes) }, uniquingKeysWith: max).values.reduce(0, +)
        maxInFlight = log.maxInFlight
        peakBlockedThreads = RequestLog(requests: log.requests.filter { $0.thread != Request.noThread }).maxInFlight
        requestsOnMainQueue = log.requests.filter { $0.thread == Request.mainQueue }.count
        requestsAfterRelaunch = events.requestsAtRelaunch.map { log.count - $0 }
        requestsAfterMemoryWarning = events.requestsAtMemoryWarning.map { log.count - $0 }
        requestsStartedWhileScrolling = events.scrolls.count(of: log.requests.map(\.startMs))
    }
}

extension FrameFigures {
    /// From the frame record and the screen at the end.
    init(_ recorder: FrameRecorder, endScreen: ScreenSnapshot, downloadQueueLimit: Int?) {
        self = recorder.figures
        othersIcons = recorder.othersIcons(endScreen: endScreen)
        self.downloadQueueLimit = downloadQueueLimit
        visibleRowsAtEnd = endScreen.rows.count
        ownIconsAtEnd = endScreen.rows.filter { recorder.state(of: $0) == .own }.count
    }

    /// The physical limit for `timeToAllVisibleMs`: the first screen's
    /// downloads (rows that share an icon share its download) packed onto the
    /// queue's lanes. An app whose downloads hold no thread and run on no
    /// operation queue (step 11's tasks) is held to as many lanes as it ever
    /// used at once. Nil when the first screen had no row.
    static func idealTimeToAllVisibleMs(
        firstScreenIcons: [String], network: SlowNetwork, downloadQueueLimit: Int?, requests: NetworkFigures
    ) -> Double? {
        guard !firstScreenIcons.isEmpty else { return nil }
        let durations = Set(firstScreenIcons).map { network.plannedStorySeconds(for: $0) * 1000 }
        let usesNoThreads = downloadQueueLimit == nil && requests.peakBlockedThreads == 0
        let lanes = usesNoThreads ? max(1, requests.maxInFlight) : Int(seam_device_threads)
        return PhysicalLimit.makespan(durations, lanes: downloadQueueLimit ?? lanes)
    }
}

extension AppFigures {
    /// From the script's memory warnings, the table watcher, the instruments
    /// and the app's controllers; `controllerFreed` is known only after the
    /// last one is retired.
    init(events: ScriptEvents, watcher: TableWatcher, log: RequestLog, instruments: Instruments, app: LaunchedApp) {
        self.init()
        memoryWarnings = events.memoryWarnings
        liveImageBytes = events.liveImageBytesAfterWarning
        staleDeliveries = watcher.staleDeliveries(requests: log.requests)
        mainThreadViolations = instruments.mainQueueViolations.count
        cellsCreated = app.table?.cellsCreated ?? 0
        cellRequests = app.cellsProvided
        progressReports = watcher.progressReports
        progressOutOfOrder = watcher.progressOutOfOrder
        progressEndedShort = watcher.progressEndedShort
    }
}
