import Foundation

/// What one run measured: from the network's request log, the frame record and
/// the instruments, never from the lesson's own say-so. Printed as a summary,
/// as JSON (`--json`, keys documented in docs/cli.md), and drawn as a timeline.
public struct Report: Codable, Equatable, Sendable {
    public var lesson = ""
    public var title = ""
    public var scenario = ""
    public var seed: UInt64 = 1
    public var speed = 1.0
    public var latencyMs = 0.0

    // From the request log.
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

    // From the frames (story milliseconds, 60 frames a story second).
    public var frames = 0
    public var maxMainStallMs = 0.0
    public var droppedFrames = 0
    public var blankFrames = 0
    public var placeholderFrames = 0
    public var wrongImageFrames = 0
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

    // From the instruments and the controller.
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
    public var diskCacheFiles = 0
    /// The bytes of the files in the step's caches folder at the end.
    public var diskCacheBytes = 0
    /// How long the story lasted.
    public var durationMs = 0.0

    // Wall time: how this machine ran it. Left out of the figures that are the
    // same in every run (their names end in `WallMs`).
    /// How long the run took.
    public var runWallMs = 0.0
    /// What the frame handler cost per frame: everything it did (scrolling, so
    /// the lesson's `cellForRowAt`, and recording), its slowest frame, and the
    /// harness's own recording alone. See `FrameWork`.
    public var frameWorkMeanWallMs = 0.0
    public var frameWorkMaxWallMs = 0.0
    public var frameRecordingMeanWallMs = 0.0
    /// What all the `cellRequests` cost the main queue together (a disk read
    /// in `cellForRowAt` shows here).
    public var cellForRowAtWallMs = 0.0

    /// What the story clock could not see in time, each in a sentence: work
    /// outside any operation queue, for instance. Empty: the run is exact, the
    /// same flags give the same figures. (docs/architecture.md, "The story clock")
    public var clockNotes: [String] = []
    /// Set when the run gave up because the app stayed busy and the clock
    /// could not move on: what was still busy.
    public var stuck: String?
    /// The numbers of a step that plays a story of its own (steps 8 and 9), by name.
    public var measures: [String: Double] = [:]

    public init() {}

    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        // JSON has no NaN or infinity; a step's measure that divided by zero
        // is written as a string rather than losing the whole report.
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        // Optional keys are written as null rather than left out: the key set is stable.
        guard let data = try? encoder.encode(self), var object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return "{}" }
        for key in [
            "requestsAfterRelaunch", "requestsAfterMemoryWarning", "timeToAllVisibleMs", "idealTimeToAllVisibleMs", "downloadQueueLimit",
            "liveImageBytes", "stuck",
        ] where object[key] == nil {
            object[key] = NSNull()
        }
        guard let full = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        else { return "{}" }
        return String(decoding: full, as: UTF8.self)
    }

    /// The readable summary a lesson prints at the end.
    public var summary: String {
        func ms(_ value: Double?) -> String { value.map { String(format: "%.0f ms", $0) } ?? "never" }
        var lines = [
            "Lesson \(lesson) · \(title) · scenario \(scenario) · seed \(seed) · latency \(latencyMs.formatted) ms",
            "  network   \(counted(requests, "request")) for \(counted(uniqueURLs, "icon")) · \(counted(duplicateRequests, "duplicate")) in flight · \(failedRequests) failed · \(counted(bytes, "byte")) · at most \(maxInFlight) at once"
                + (requestsOnMainQueue > 0 ? " · \(requestsOnMainQueue) on the main queue" : ""),
            "  screen    \(counted(frames, "frame")) · \(droppedFrames) dropped · longest main-queue stall \(ms(maxMainStallMs))",
            "            \(blankFrames) blank · \(placeholderFrames) with a placeholder · \(wrongImageFrames) with another row's icon",
            "            all visible icons shown after \(ms(timeToAllVisibleMs)) · at the end \(ownIconsAtEnd)/\(visibleRowsAtEnd) rows show their own icon",
            "  memory    \(counted(memoryWarnings, "memory warning")) · image bytes kept after the last one: \(liveImageBytes.map(String.init) ?? "n/a")"
                + (memoryWarnings > 0
                    ? " · \(counted(staleDeliveries, "icon")) delivered after it by downloads started before it"
                        + " · \(counted(requestsAfterMemoryWarning ?? 0, "request")) started after it" : ""),
            "  app       \(counted(mainThreadViolations, "main-queue violation")) · controller freed: \(controllerFreed ? "yes" : "no") · \(counted(cellsCreated, "cell")) made · \(counted(diskCacheFiles, "file")) in the disk cache",
        ]
        if let requestsAfterRelaunch { lines[1] += " · \(requestsAfterRelaunch) after the relaunch" }
        lines.insert("            \(requestsStartedWhileScrolling) of them started while the user was scrolling", at: 2)
        if !measures.isEmpty {
            lines.append(
                "  step      " + measures.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.formatted)" }
                    .joined(separator: " · "))
        }
        lines.append("  took      \(ms(durationMs)) of story (\(ms(runWallMs)) here)")
        for note in clockNotes { lines.append("  clock     not exact: \(note)") }
        if let stuck { lines.append("  stuck     \(stuck)") }
        return lines.joined(separator: "\n")
    }
}

extension Double {
    /// "20" rather than "20.0", "0.3" rather than "0.30000000000000004".
    var formatted: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(format: "%.3g", self)
    }
}
