// Every figure of the report, in docs/cli.md's order.

extension ReportFigure {
    /// One for every key of the JSON report (`ReportFigureTests` holds it to the encoder's keys).
    public static let all: [ReportFigure] = [
        .lesson, .title, .scenario, .seed, .speed, .latencyMs, .requests, .uniqueURLs, .duplicateRequests,
        .failedRequests, .bytes, .uniqueBytes, .maxInFlight, .peakBlockedThreads, .requestsOnMainQueue,
        .requestsStartedWhileScrolling, .iconRequests, .launches, .requestsAfterRelaunch, .requestsAfterMemoryWarning,
        .frames, .maxMainStallMs, .droppedFrames, .blankFrames, .placeholderFrames, .othersIcons, .wrongImageFrames,
        .timeToAllVisibleMs, .idealTimeToAllVisibleMs, .downloadQueueLimit, .visibleRowsAtEnd, .ownIconsAtEnd,
        .memoryWarnings, .liveImageBytes, .staleDeliveries, .mainThreadViolations, .controllerFreed, .cellsCreated,
        .progressReports, .progressOutOfOrder, .progressEndedShort, .cellRequests, .diskCacheFilesAtStart,
        .diskCacheFiles, .diskCacheBytes, .diskReads, .diskReadFiles, .mainQueueFileWrites, .durationMs, .measures,
        .clockNotes, .stuck, .runWallMs, .frameWorkMeanWallMs, .frameWorkMaxWallMs, .frameRecordingMeanWallMs,
        .frameWorkMeanCPUMs, .frameRecordingMeanCPUMs, .cellForRowAtWallMs, .mainQueueWriteStallWallMs,
    ]

    public static let lesson = ReportFigure(
        "lesson", .text,
        meaning: #"the step's number, two digits (`"02"`)"#)

    public static let title = ReportFigure(
        "title", .text,
        meaning: "the step's title")

    public static let scenario = ReportFigure(
        "scenario", .text,
        meaning: "the scenario played")

    public static let seed = ReportFigure("seed", .wholeNumber, meaning: "the `--seed` of the run") { Double($0.seed) }

    public static let speed = ReportFigure(
        "speed", \.run.speed, .factor,
        meaning: "the `--speed` of the run (paced runs only: the figures do not depend on it)")

    public static let latencyMs = ReportFigure(
        "latencyMs", \.run.latencyMs, .storyMs,
        meaning: "the latency every request was given")

    public static let requests = ReportFigure(
        "requests", \.network.requests, .count, noun: "request", label: "requests",
        meaning: "fetches started, from the network's request log")

    public static let uniqueURLs = ReportFigure(
        "uniqueURLs", \.network.uniqueURLs, .count, noun: "icon", label: "icons asked for",
        meaning: "distinct URLs fetched")

    public static let duplicateRequests = ReportFigure(
        "duplicateRequests", \.network.duplicateRequests, .count, noun: "request",
        label: "requests for an icon already in flight",
        sentence: "{} asked for an icon already in flight (a duplicate).",
        meaning: """
            requests that started while an earlier request for the same URL was still in flight (a request after the \
            previous one ended is a re-download, not a duplicate)
            """)

    public static let failedRequests = ReportFigure(
        "failedRequests", \.network.failedRequests, .count, noun: "request", label: "failed requests",
        meaning: """
            requests that gave no usable image: offline, connection lost (`--fail-rate`, fail-first rules), HTTP \
            errors, the network shut down at the end of the run, fetches the app cancelled (`NetworkTask.cancel()`), \
            and corrupt or truncated bodies
            """)

    public static let bytes = ReportFigure(
        "bytes", \.network.bytes, .bytes, noun: "byte", label: "bytes downloaded",
        meaning: "body bytes delivered, corrupt and truncated bodies included")

    public static let uniqueBytes = ReportFigure(
        "uniqueBytes", \.network.uniqueBytes, .bytes,
        meaning: """
            the body of each distinct URL counted once (its largest delivery): what `bytes` would be if nothing were \
            fetched twice
            """)

    public static let maxInFlight = ReportFigure(
        "maxInFlight", \.network.maxInFlight, .count, noun: "request", label: "most requests at once",
        meaning: "the most requests in flight at one moment")

    public static let peakBlockedThreads = ReportFigure(
        "peakBlockedThreads", \.network.peakBlockedThreads, .count, noun: "thread",
        label: "most threads held waiting for the network",
        meaning: """
            the most threads waiting in the network at once: a blocking fetch (`Data(contentsOf:)`) holds its thread \
            until its answer comes, a fetch that blocks none (`SlowNetwork.fetch`) holds none
            """)

    public static let requestsOnMainQueue = ReportFigure(
        "requestsOnMainQueue", \.network.requestsOnMainQueue, .count, noun: "request",
        label: "requests made on the main queue", sentence: "{} waited on the main queue.",
        meaning: "requests made from the main queue (the synchronous load's mistake)")

    public static let requestsStartedWhileScrolling = ReportFigure(
        "requestsStartedWhileScrolling", \.network.requestsStartedWhileScrolling, .count, noun: "request",
        label: "requests started while the user scrolled", sentence: "{} started while the user was scrolling.",
        meaning: """
            requests that started while the user was scrolling (finger down, or the table still gliding): downloads \
            competing with the scroll (a queue suspended while the user drags brings it to 0)
            """)

    public static let iconRequests = ReportFigure(
        "iconRequests", .object,
        meaning: """
            each icon's downloads: `icons`, each with its `url`, the first `row` that shows it and its `downloads` \
            in story order (`startMs`, `endMs`, `outcome`: ok, cancelled, failed, corrupt, truncated or in flight, \
            and `shown`: the icon reached a cell before it was asked for again), `memoryWarningsMs`, when the memory \
            warnings came, and `scrolls`, each with `startMs` (the finger down), `glideMs` (the finger up, the table \
            gliding on; `endMs` for a drag) and `endMs`
            """)

    public static let launches = ReportFigure(
        "launches", .objects,
        meaning: """
            each launch of the app, the first and one per relaunch: `atMs`, when it launched; `requests`, the \
            requests it started (until the next launch or the end); `diskCacheFiles`, the files its caches folder \
            held as it launched
            """)

    public static let requestsAfterRelaunch = ReportFigure(
        "requestsAfterRelaunch", \.network.requestsAfterRelaunch, .count, noun: "request",
        label: "requests after the relaunch", sentence: "After the relaunch: {}.",
        meaning: "requests started after the last relaunch; `null` when the scenario has none")

    public static let requestsAfterMemoryWarning = ReportFigure(
        "requestsAfterMemoryWarning", \.network.requestsAfterMemoryWarning, .count, noun: "request",
        label: "requests after the memory warning",
        meaning: """
            requests started after the last memory warning (downloads that were only waiting at it start here, \
            unless they were cancelled); `null` when the scenario has none
            """)

    public static let frames = ReportFigure(
        "frames", \.screen.frames, .refreshes, noun: "frame",
        meaning: "display refreshes during the run, dropped ones included")

    public static let maxMainStallMs = ReportFigure(
        "maxMainStallMs", \.screen.maxMainStallMs, .storyMs, label: "longest main-queue stall",
        meaning: """
            the longest time the main queue could not commit a frame: the longest gap between two commits (or from \
            launch to the first commit), minus one frame
            """)

    public static let droppedFrames = ReportFigure(
        "droppedFrames", \.screen.droppedFrames, .refreshes, noun: "frame", label: "frames dropped",
        meaning: """
            refreshes that showed an old frame because the main queue was waiting (a 300 ms download on the main \
            queue in one frame is 18)
            """)

    public static let blankFrames = ReportFigure(
        "blankFrames", \.screen.blankFrames, .refreshes, noun: "frame", label: "frames with a blank row",
        meaning: "refreshes in which some visible row showed no image at all")

    public static let placeholderFrames = ReportFigure(
        "placeholderFrames", \.screen.placeholderFrames, .refreshes, noun: "frame", label: "frames with a placeholder",
        meaning: "refreshes in which some visible row showed the placeholder")

    public static let othersIcons = ReportFigure(
        "othersIcons", .objects,
        meaning: """
            each row that showed another row's icon, by row: `row`, `showed` (the row whose icon it was; null when \
            it was no row's), `frames` (the refreshes it showed it) and `atEnd` (it still did at the end)
            """)

    public static let wrongImageFrames = ReportFigure(
        "wrongImageFrames", \.screen.wrongImageFrames, .refreshes, noun: "frame",
        label: "frames with another row's icon",
        meaning: "refreshes in which some visible row showed another row's icon (the reuse bug)")

    public static let timeToAllVisibleMs = ReportFigure(
        "timeToAllVisibleMs", \.screen.timeToAllVisibleMs, .storyMs,
        label: "every visible row first shows its own icon after",
        meaning: """
            from the launch to the first frame in which every visible row showed its own icon; `null` if that never \
            happened
            """)

    public static let idealTimeToAllVisibleMs = ReportFigure(
        "idealTimeToAllVisibleMs", \.screen.idealTimeToAllVisibleMs, .storyMs,
        meaning: """
            the physical limit for `timeToAllVisibleMs`: the first screen's downloads, each as long as the network \
            will make it (known from the seed, slow rows included), packed onto `downloadQueueLimit` lanes with no \
            overhead at all (`PhysicalLimit`; see docs/performance.md)
            """)

    public static let downloadQueueLimit = ReportFigure(
        "downloadQueueLimit", \.screen.downloadQueueLimit, .count,
        meaning: """
            `maxConcurrentOperationCount` of the download queue of the controller the run launched first; `null` \
            when it has no queue or sets no limit (then a phone's 64 threads are the lanes)
            """)

    public static let visibleRowsAtEnd = ReportFigure(
        "visibleRowsAtEnd", \.screen.visibleRowsAtEnd, .count, noun: "row",
        meaning: "rows on screen at the end")

    public static let ownIconsAtEnd = ReportFigure(
        "ownIconsAtEnd", \.screen.ownIconsAtEnd, .count, noun: "row", label: "rows showing their own icon at the end",
        meaning: "of those, rows showing their own icon")

    public static let memoryWarnings = ReportFigure(
        "memoryWarnings", \.app.memoryWarnings, .count, noun: "memory warning",
        meaning: "memory warnings delivered to the controller")

    public static let liveImageBytes = ReportFigure(
        "liveImageBytes", \.app.liveImageBytes, .bytes, noun: "byte",
        label: "image bytes kept after the memory warning",
        meaning: """
            decoded image pixels still alive right after the last memory warning was handled, not counting the \
            images the cells show: what the app kept. `null` when the scenario has no warning
            """)

    public static let staleDeliveries = ReportFigure(
        "staleDeliveries", \.app.staleDeliveries, .count, noun: "icon",
        label: "icons delivered after the warning by downloads started before it",
        meaning: """
            icons the app delivered after a memory warning, by reloading a row or setting a cell's image outside \
            `cellForRowAt`, whose last request started before the warning: downloads the warning should have \
            stopped, filling the cache it emptied. Judged by the harness from the table and the request log, so it \
            holds for any code; each icon counted once per warning
            """)

    public static let mainThreadViolations = ReportFigure(
        "mainThreadViolations", \.app.mainThreadViolations, .count, noun: "time",
        label: "UI touched off the main queue",
        meaning: """
            UI objects (image views, labels, the table) touched off the main queue: what the Main Thread Checker \
            would flag
            """)

    public static let controllerFreed = ReportFigure(
        "controllerFreed", \.app.controllerFreed, .yesNo, label: "controller freed when its screen went away",
        meaning: """
            whether the last controller was deallocated one main-queue turn after its screen went away at the end of \
            the run (false: something, a retain cycle or a running download, still holds it)
            """)

    public static let cellsCreated = ReportFigure(
        "cellsCreated", \.app.cellsCreated, .count, noun: "cell", label: "cells the table made",
        meaning: "cell objects the last controller's table ever made (about one screenful when reuse works)")

    public static let progressReports = ReportFigure(
        "progressReports", \.app.progressReports, .count, label: "load progress shown",
        meaning: """
            load progress values above 0 that image views showed (a library that sets `ImageView.progress`, drawn \
            as a bar in the row), watched by the harness from the table
            """)

    public static let progressOutOfOrder = ReportFigure(
        "progressOutOfOrder", \.app.progressOutOfOrder, .count,
        meaning: "of those, values that did not rise above the one before on the same image view")

    public static let progressEndedShort = ReportFigure(
        "progressEndedShort", \.app.progressEndedShort, .count,
        meaning: "images that arrived on an image view while its progress bar stood short of full")

    public static let cellRequests = ReportFigure(
        "cellRequests", \.app.cellRequests, .count,
        meaning: "how many times the table asked the app for a cell (`cellForRowAt`), over every controller of the run")

    public static let diskCacheFilesAtStart = ReportFigure(
        "diskCacheFilesAtStart", \.disk.diskCacheFilesAtStart, .count, noun: "icon",
        sentence: "Disk cache: {} from an earlier run — `--clear-cache` to start cold.",
        meaning: """
            entries the step's caches folder held when the run began, counted as `diskCacheFiles` is: icons an \
            earlier run left there. More than 0 is a warm start, and the summary says so ("Disk cache: 28 icons from \
            an earlier run — `--clear-cache` to start cold"). A step whose point is downloads empties the folder \
            before a run of its own scenario (a warm cache would skip them); other runs start with what is \
            there
            """)

    public static let diskCacheFiles = ReportFigure(
        "diskCacheFiles", \.disk.diskCacheFiles, .count, noun: "file", label: "files in the disk cache at the end",
        meaning: """
            entries in the step's caches folder at the end, not counting unfinished atomic writes (`.dat.nosync…` \
            files; a launch removes those older than a minute, left by a run killed mid-write)
            """)

    public static let diskCacheBytes = ReportFigure(
        "diskCacheBytes", \.disk.diskCacheBytes, .bytes, noun: "byte",
        meaning: "the size of those entries together")

    public static let diskReads = ReportFigure(
        "diskReads", \.disk.diskReads, .count,
        meaning: """
            files the app read from the step's caches folder (opened and closed unwritten), seen from outside with \
            Linux's inotify, from the launch on. `null` when the run could not follow the folder throughout: no \
            folder at the launch (an app with no disk cache, or one whose disk cache makes its folder at its first write), the \
            folder deleted or moved mid-run, a subfolder it could not watch, or the kernel's event queue overflowed. \
            Reads in subfolders count (a library's `Caches/images/…`): inotify watches one folder, so each subfolder \
            gets a watch of its own, those there at the launch and each made later as its making is seen
            """)

    public static let diskReadFiles = ReportFigure(
        "diskReadFiles", .objects, canBeNull: true,
        meaning: """
            the same reads by file: `file` (its path in the caches folder), `rows` (the rows whose icon the file \
            held when its read was seen, by the art's pixels; empty when it held no row's) and `reads`. `null` when \
            `diskReads` is
            """)

    public static let mainQueueFileWrites = ReportFigure(
        "mainQueueFileWrites", \.disk.mainQueueFileWrites, .files, noun: "file",
        meaning: """
            files the app put into its caches folder from the main queue (its blocks there, or its `cellForRowAt`), \
            each seen by the harness's Dispatch seam at the `rename` that ends `Data.write(to:options: .atomic)`; \
            a variant that writes from the main queue shows here; the steps' own code writes none there
            """)

    public static let durationMs = ReportFigure(
        "durationMs", \.run.durationMs, .storyMs, label: "length of the story",
        meaning: "the whole story, from the launch to the end of the script")

    public static let measures = ReportFigure(
        "measures", .numbers,
        meaning: "always empty for the image list (the operation stories have a report of their own, below)")

    public static let clockNotes = ReportFigure(
        "clockNotes", .sentences,
        meaning: """
            what the story clock could not see in time, one sentence each: requests from a `Thread` of the app's own \
            (work neither on the main queue nor handed to Dispatch or an `OperationQueue`). Empty: the run is exact
            """)

    public static let stuck = ReportFigure(
        "stuck", .text, canBeNull: true,
        meaning: """
            set when the clock waited 30 s of wall time for an app that never became idle (an operation blocked \
            outside the network, a main-queue loop) and the run was stopped: what was still busy; or when the run \
            ended with a fetch in flight that nothing due could ever end (the clock would keep it for ever): its \
            URL. `null` otherwise
            """)

    public static let runWallMs = ReportFigure(
        "runWallMs", \.machine.runWallMs, .wallMs,
        meaning: "how long the run took on this machine")

    public static let frameWorkMeanWallMs = ReportFigure(
        "frameWorkMeanWallMs", \.machine.frameWorkMeanWallMs, .wallMs,
        meaning: """
            the frame handler's mean time per frame: the script's scrolling (and so the lesson's `cellForRowAt`), \
            the snapshot, judging each visible row, the status line
            """)

    public static let frameWorkMaxWallMs = ReportFigure(
        "frameWorkMaxWallMs", \.machine.frameWorkMaxWallMs, .wallMs,
        meaning: "the frame handler's slowest frame")

    public static let frameRecordingMeanWallMs = ReportFigure(
        "frameRecordingMeanWallMs", \.machine.frameRecordingMeanWallMs, .wallMs,
        meaning: """
            the harness's own share of a frame: snapshot, judging, status line (how the harness shows it scales: \
            docs/performance.md)
            """)

    public static let frameWorkMeanCPUMs = ReportFigure(
        "frameWorkMeanCPUMs", \.machine.frameWorkMeanCPUMs, .cpuMs,
        meaning: """
            `frameWorkMeanWallMs` in the main thread's CPU time: the frame handler's work without the time a busy \
            machine gave other processes (what `PerformanceTests` compares)
            """)

    public static let frameRecordingMeanCPUMs = ReportFigure(
        "frameRecordingMeanCPUMs", \.machine.frameRecordingMeanCPUMs, .cpuMs,
        meaning: "`frameRecordingMeanWallMs` in the main thread's CPU time")

    public static let cellForRowAtWallMs = ReportFigure(
        "cellForRowAtWallMs", \.machine.cellForRowAtWallMs, .wallMs,
        meaning: """
            what all the `cellRequests` cost the main queue together, timed by the table from outside the app (a \
            disk read in `cellForRowAt` shows here)
            """)

    public static let mainQueueWriteStallWallMs = ReportFigure(
        "mainQueueWriteStallWallMs", \.machine.mainQueueWriteStallWallMs, .wallMs,
        meaning: """
            of the main-queue work that wrote a `mainQueueFileWrites` file, the longest any had run by the time its \
            file was in place: how long the write (and what came before it in that block) held the main queue; 0 \
            without such a write
            """)
}
