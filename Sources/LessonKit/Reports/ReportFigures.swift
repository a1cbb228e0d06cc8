/// What was played, and for how long in the story.
public struct RunFigures: Codable, Equatable, Sendable {
    public var lesson = ""
    public var title = ""
    public var scenario = ""
    public var seed: UInt64 = 1
    public var speed = 1.0
    public var latencyMs = 0.0
    /// How long the story lasted.
    public var durationMs = 0.0
    /// Each launch of the app: the first, and one per relaunch.
    public var launches: [LaunchFigures] = []
}

/// One launch of the app, from its start to the next launch or the story's end.
public struct LaunchFigures: Codable, Equatable, Sendable {
    /// When it launched, in story milliseconds.
    public var atMs = 0.0
    /// The requests it started.
    public var requests = 0
    /// The files its caches folder held as it launched.
    public var diskCacheFiles = 0
}

/// From the request log.
public struct NetworkFigures: Codable, Equatable, Sendable {
    public var requests = 0
    public var uniqueURLs = 0
    public var duplicateRequests = 0
    public var failedRequests = 0
    public var bytes = 0
    /// The body of each distinct URL once: what `bytes` would be if no icon
    /// were fetched twice (`bytes` ÷ `uniqueBytes` = 1.00 when none was).
    public var uniqueBytes = 0
    public var maxInFlight = 0
    /// The most threads waiting in the network at once: a blocking fetch holds
    /// its thread until its answer comes; a fetch that blocks none holds none.
    public var peakBlockedThreads = 0
    public var requestsOnMainQueue = 0
    /// Requests made after the last relaunch; nil when the scenario has none.
    public var requestsAfterRelaunch: Int?
    /// Requests made after the last memory warning; nil when the scenario has none.
    public var requestsAfterMemoryWarning: Int?
    /// Requests that started while the user was scrolling (finger down, or
    /// the table still gliding): downloads competing with the scroll.
    public var requestsStartedWhileScrolling = 0
    /// Each icon's downloads, how each ended and whether it reached a cell.
    public var iconRequests = IconRequests()
}

/// From the frames (story milliseconds, 60 frames a story second).
public struct FrameFigures: Codable, Equatable, Sendable {
    public var frames = 0
    public var maxMainStallMs = 0.0
    public var droppedFrames = 0
    public var blankFrames = 0
    public var placeholderFrames = 0
    public var wrongImageFrames = 0
    /// Each row that showed another row's icon, and whose: what `wrongImageFrames` counts, row by row.
    public var othersIcons: [OthersIcon] = []
    /// From the launch to the first frame in which every visible row shows its own icon.
    public var timeToAllVisibleMs: Double?
    /// The physical limit for `timeToAllVisibleMs` (see `PhysicalLimit`): the
    /// first screen's downloads packed onto `downloadQueueLimit` lanes (the
    /// story's two worker threads when the queue has no limit), with no overhead.
    public var idealTimeToAllVisibleMs: Double?
    /// `maxConcurrentOperationCount` of the step's download queue, read from the
    /// controller the run launched first; nil when it has none or sets no limit.
    public var downloadQueueLimit: Int?
    public var visibleRowsAtEnd = 0
    public var ownIconsAtEnd = 0
}

/// A row that showed another row's icon: whose (`showed`, nil when it is no
/// row's), for how many refreshes, and whether it still did at the end.
public struct OthersIcon: Codable, Equatable, Sendable {
    public var row: Int
    public var showed: Int?
    public var frames: Int
    public var atEnd: Bool

    struct Pair: Hashable, Codable {
        let row: Int
        let showed: Int?
    }
}

/// A file the app read from its caches folder: its path there, the rows whose
/// icon it held when read (none: no row's), and how many times it was read.
public struct DiskReadFile: Codable, Equatable, Sendable {
    public var file: String
    public var rows: [Int]
    public var reads: Int

    struct Key: Hashable {
        let file: String
        let rows: [Int]
    }

    /// Two lists of reads as one: the reads of one file holding one icon added up.
    static func merged(_ earlier: [DiskReadFile], _ later: [DiskReadFile]) -> [DiskReadFile] {
        var reads: [Key: Int] = [:]
        for read in earlier + later { reads[Key(file: read.file, rows: read.rows), default: 0] += read.reads }
        return reads.map { DiskReadFile(file: $0.key.file, rows: $0.key.rows, reads: $0.value) }
            .sorted { ($0.file, $0.rows.first ?? -1) < ($1.file, $1.rows.first ?? -1) }
    }
}

/// From the instruments and the controller.
public struct AppFigures: Codable, Equatable, Sendable {
    public var memoryWarnings = 0
    /// Image bytes alive right after the last memory warning that no cell
    /// holds: what the app kept. Nil when the scenario has no warning.
    public var liveImageBytes: Int?
    /// Icons the app delivered after a memory warning (a row reloaded, or an
    /// image set on a cell) whose last request started before it: downloads
    /// the warning should have stopped, still filling the emptied cache.
    public var staleDeliveries = 0
    public var mainThreadViolations = 0
    public var controllerFreed = false
    public var cellsCreated = 0
    /// How many times the table asked the app for a cell (`cellForRowAt`).
    public var cellRequests = 0
    /// The load progress image views showed (an image library's bar): values
    /// shown, values that did not rise, images that came while the bar stood short.
    public var progressReports = 0
    public var progressOutOfOrder = 0
    public var progressEndedShort = 0
}

/// From the step's caches folder.
public struct DiskFigures: Codable, Equatable, Sendable {
    /// Entries the step's caches folder held when the run began: icons an
    /// earlier run left there (a warm start).
    public var diskCacheFilesAtStart = 0
    public var diskCacheFiles = 0
    /// The bytes of the files in the step's caches folder at the end.
    public var diskCacheBytes = 0
    /// Files the app read from its caches folder; nil when the run could not
    /// watch it throughout (`DiskReadWatch`).
    public var diskReads: Int?
    /// The same reads by file (its path in the caches folder) and by the rows
    /// whose icon the file held when read; nil when `diskReads` is.
    public var diskReadFiles: [DiskReadFile]?
    /// Files the app wrote from the main queue (the seam sees each put in place).
    public var mainQueueFileWrites = 0
}

/// Wall and CPU time: how this machine ran it. Left out of the figures that
/// are the same in every run (their names end in `WallMs` or `CPUMs`).
public struct WallFigures: Codable, Equatable, Sendable {
    /// How long the run took.
    public var runWallMs = 0.0
    /// What the frame handler cost per frame: everything it did (scrolling, so
    /// the lesson's `cellForRowAt`, and recording), its slowest frame, and the
    /// harness's own recording alone. See `FrameWork`.
    public var frameWorkMeanWallMs = 0.0
    public var frameWorkMaxWallMs = 0.0
    public var frameRecordingMeanWallMs = 0.0
    /// The same two means in the main thread's CPU time: the work the frame
    /// handler did, without the time a busy machine gave other processes.
    public var frameWorkMeanCPUMs = 0.0
    public var frameRecordingMeanCPUMs = 0.0
    /// What all the `cellRequests` cost the main queue together (a disk read
    /// in `cellForRowAt` shows here).
    public var cellForRowAtWallMs = 0.0
    /// The longest any main-queue work that wrote a file had run by the time
    /// the file was in place: a stall the story clock does not see.
    public var mainQueueWriteStallWallMs = 0.0
}

/// Whether the figures are exact: what the clock could not see, and whether it gave up.
public struct ClockFigures: Codable, Equatable, Sendable {
    /// What the story clock could not see in time, each in a sentence: work
    /// outside any operation queue, for instance. Empty: the run is exact, the
    /// same flags give the same figures. (docs/architecture.md, "The story clock")
    public var clockNotes: [String] = []
    /// Set when the run gave up because the app stayed busy and the clock
    /// could not move on: what was still busy.
    public var stuck: String?
}
