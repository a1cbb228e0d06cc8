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
    /// Each icon's downloads, how each ended and whether it reached a cell.
    public var iconRequests = IconRequests()

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
    /// Entries the step's caches folder held when the run began: icons an
    /// earlier run left there (a warm start).
    public var diskCacheFilesAtStart = 0
    public var diskCacheFiles = 0
    /// The bytes of the files in the step's caches folder at the end.
    public var diskCacheBytes = 0
    /// Files the app read from its caches folder; nil when the run could not
    /// watch it throughout (`DiskReadWatch`).
    public var diskReads: Int?
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
            "liveImageBytes", "diskReads", "stuck",
        ] where object[key] == nil {
            object[key] = NSNull()
        }
        guard let full = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        else { return "{}" }
        return String(decoding: full, as: UTF8.self)
    }

    /// The readable summary a lesson prints at the end: each figure said in a
    /// sentence, one or two a line (the keys are the JSON's).
    public var summary: String {
        var lines = ["Lesson \(lesson) · \(title) · scenario \(scenario) · seed \(seed) · latency \(latencyMs.formatted) ms"]
        func say(_ sentence: String) { lines.append("  " + sentence) }
        if diskCacheFilesAtStart > 0 {
            say("Disk cache: \(counted(diskCacheFilesAtStart, "icon")) from an earlier run — `--clear-cache` to start cold.")
        }
        say(networkSentence)
        for sentence in requestDetails { say(sentence) }
        say(stallSentence)
        say(
            timeToAllVisibleMs.map { "Every visible row first showed its own icon \(milliseconds($0)) after the launch." }
                ?? "Never did every visible row show its own icon at once.")
        say(screenSentence)
        say("At the end \(ownIconsAtEnd) of \(visibleRowsAtEnd) rows show their own icon.")
        if memoryWarnings > 0 { say(memorySentence) }
        say(appSentence)
        if diskCacheFiles > 0 || diskCacheFilesAtStart > 0 {
            say(
                "The disk cache holds \(counted(diskCacheFiles, "file")) (\(counted(diskCacheBytes, "byte"))) at the end.")
        }
        say("The story took \(milliseconds(durationMs)) (\(milliseconds(runWallMs)) on this machine).")
        for note in clockNotes { say("Not exact: \(note).") }
        if let stuck { say("The run was stopped, stuck: \(stuck)") }
        return lines.joined(separator: "\n")
    }

    private var networkSentence: String {
        guard requests > 0 else { return "Network: no request." }
        let failed =
            failedRequests == 0
            ? "none failed" : failedRequests == requests ? "every one failed" : "\(failedRequests) failed"
        return "Network: \(counted(requests, "request")) for \(counted(uniqueURLs, "icon")), \(failed); "
            + "\(counted(bytes, "byte")) came, at most \(counted(maxInFlight, "request")) at once."
    }

    /// What the requests did that a lesson is about, each said only when it happened.
    private var requestDetails: [String] {
        var sentences: [String] = []
        if duplicateRequests > 0 {
            sentences.append(
                "\(counted(duplicateRequests, "request")) asked for an icon already in flight (a duplicate).")
        }
        if requestsOnMainQueue > 0 {
            sentences.append("\(counted(requestsOnMainQueue, "request")) waited on the main queue.")
        }
        // Threads held by a blocking fetch: what step 10's asynchronous operation takes to none.
        if requests > 0 {
            sentences.append(
                peakBlockedThreads == 0
                    ? "Waiting for the network held no thread."
                    : "Waiting for the network held up to \(counted(peakBlockedThreads, "thread")) at once.")
        }
        if requestsStartedWhileScrolling > 0 {
            sentences.append(
                "\(counted(requestsStartedWhileScrolling, "request")) started while the user was scrolling.")
        }
        if let requestsAfterRelaunch {
            sentences.append("After the relaunch: \(counted(requestsAfterRelaunch, "request")).")
        }
        return sentences
    }

    private var stallSentence: String {
        guard maxMainStallMs > 0 else {
            return "The main queue never stalled: none of the \(counted(frames, "frame")) was dropped."
        }
        return "The main queue stalled for up to \(milliseconds(maxMainStallMs)): "
            + "\(droppedFrames) of \(counted(frames, "frame")) were dropped."
    }

    private var screenSentence: String {
        func frames(_ count: Int) -> String { count == 0 ? "none" : counted(count, "frame") }
        let placeholder =
            placeholderFrames == 0 ? "No frame showed a placeholder" : "\(frames(placeholderFrames)) showed a placeholder"
        return "\(placeholder), \(frames(blankFrames)) a blank row, \(frames(wrongImageFrames)) another row's icon."
    }

    private var memorySentence: String {
        let warning = memoryWarnings == 1 ? "the memory warning" : "the last of \(memoryWarnings) memory warnings"
        let kept = liveImageBytes.map { "the app kept \(counted($0, "byte")) of images" } ?? "nothing was measured"
        return "After \(warning) \(kept); \(counted(staleDeliveries, "icon")) came after it from downloads "
            + "started before it, and \(counted(requestsAfterMemoryWarning ?? 0, "request")) started after it."
    }

    private var appSentence: String {
        let violations =
            mainThreadViolations == 0
            ? "The app touched no UI off the main queue"
            : "The app touched UI off the main queue \(mainThreadViolations) \(mainThreadViolations == 1 ? "time" : "times")"
        let freed =
            controllerFreed
            ? "its controller was freed when its screen went away"
            : "its controller was still held when its screen went away"
        return "\(violations); \(freed); its table made \(counted(cellsCreated, "cell"))."
    }

    private func milliseconds(_ value: Double) -> String {
        value >= 10_000 ? String(format: "%.1f s", value / 1000) : String(format: "%.0f ms", value)
    }
}

extension Double {
    /// "20" rather than "20.0", "0.3" rather than "0.30000000000000004".
    var formatted: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(format: "%.3g", self)
    }
}
