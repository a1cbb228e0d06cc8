import Foundation

/// What one run measured: from the network's request log, the frame record and
/// the instruments, never from the lesson's own say-so. Printed as a summary,
/// as JSON (`--json`, keys documented in docs/cli.md), and drawn as a timeline.
///
/// Its figures come in groups, one for each thing they are read from
/// (`ReportFigures.swift`); `report.requests` reads through to its group, and
/// the JSON stays one flat object keyed by the figures' names, as docs/cli.md
/// promises.
@dynamicMemberLookup
public struct Report: Codable, Equatable, Sendable {
    public var run = RunFigures()
    public var network = NetworkFigures()
    public var screen = FrameFigures()
    public var app = AppFigures()
    public var disk = DiskFigures()
    public var machine = WallFigures()
    public var clock = ClockFigures()
    /// The numbers of a step that plays a story of its own (steps 8 and 9), by name.
    public var measures: [String: Double] = [:]

    public init() {}

    public subscript<Value>(dynamicMember figure: WritableKeyPath<RunFigures, Value>) -> Value {
        get { run[keyPath: figure] }
        set { run[keyPath: figure] = newValue }
    }
    public subscript<Value>(dynamicMember figure: WritableKeyPath<NetworkFigures, Value>) -> Value {
        get { network[keyPath: figure] }
        set { network[keyPath: figure] = newValue }
    }
    public subscript<Value>(dynamicMember figure: WritableKeyPath<FrameFigures, Value>) -> Value {
        get { screen[keyPath: figure] }
        set { screen[keyPath: figure] = newValue }
    }
    public subscript<Value>(dynamicMember figure: WritableKeyPath<AppFigures, Value>) -> Value {
        get { app[keyPath: figure] }
        set { app[keyPath: figure] = newValue }
    }
    public subscript<Value>(dynamicMember figure: WritableKeyPath<DiskFigures, Value>) -> Value {
        get { disk[keyPath: figure] }
        set { disk[keyPath: figure] = newValue }
    }
    public subscript<Value>(dynamicMember figure: WritableKeyPath<WallFigures, Value>) -> Value {
        get { machine[keyPath: figure] }
        set { machine[keyPath: figure] = newValue }
    }
    public subscript<Value>(dynamicMember figure: WritableKeyPath<ClockFigures, Value>) -> Value {
        get { clock[keyPath: figure] }
        set { clock[keyPath: figure] = newValue }
    }

    // Every group writes its keys into the one object, and reads them from it.
    private enum CodingKeys: String, CodingKey { case measures }

    public init(from decoder: any Decoder) throws {
        run = try RunFigures(from: decoder)
        network = try NetworkFigures(from: decoder)
        screen = try FrameFigures(from: decoder)
        app = try AppFigures(from: decoder)
        disk = try DiskFigures(from: decoder)
        machine = try WallFigures(from: decoder)
        clock = try ClockFigures(from: decoder)
        measures = try decoder.container(keyedBy: CodingKeys.self).decode([String: Double].self, forKey: .measures)
    }

    public func encode(to encoder: any Encoder) throws {
        let groups: [any Encodable] = [run, network, screen, app, disk, machine, clock]
        for group in groups { try group.encode(to: encoder) }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(measures, forKey: .measures)
    }

    /// A report read back from `source` (a file, or what a run handed over),
    /// written perhaps by another build of the lessons: a figure that may be
    /// absent (written `null`, not measured) reads as absent; a report that
    /// lacks any other figure this build reads is refused, in one sentence
    /// naming `source` and the figures, rather than read with figures it never had.
    public static func read(_ data: Data, from source: String) throws(UnreadableReport) -> Report {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw UnreadableReport(source: source, reason: "it is not a JSON object")
        }
        let lacking = requiredKeys.subtracting(object.keys).sorted()
        guard lacking.isEmpty else {
            throw UnreadableReport(
                source: source,
                reason: "it was written by an older build of the lessons and lacks "
                    + lacking.map { "`\($0)`" }.joined(separator: ", ") + "; play it again with this build")
        }
        do {
            return try JSONDecoder().decode(Report.self, from: data)
        } catch {
            throw UnreadableReport(source: source, reason: UnreadableReport.said(error))
        }
    }

    /// The keys every report has a value for: those `json()` never writes as `null`.
    static let requiredKeys: Set<String> = {
        guard let object = try? JSONSerialization.jsonObject(with: Data(Report().json().utf8)) as? [String: Any] else {
            return []
        }
        return Set(object.filter { !($0.value is NSNull) }.keys)
    }()

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
        for figure in ReportFigure.all where figure.canBeNull && object[figure.key] == nil {
            object[figure.key] = NSNull()
        }
        guard let full = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
        else { return "{}" }
        return String(decoding: full, as: UTF8.self)
    }

    /// The readable summary a lesson prints at the end: each figure said in a
    /// sentence, one or two a line (the keys are the JSON's).
    public var summary: String {
        var lines = ["Lesson \(self.lesson) · \(self.title) · scenario \(self.scenario) · seed \(self.seed) · latency \(self.latencyMs.formatted) ms"]
        func say(_ sentence: String) { lines.append("  " + sentence) }
        if let warmStart = ReportFigure.diskCacheFilesAtStart.said(in: self) { say(warmStart) }
        say(networkSentence)
        for sentence in requestDetails { say(sentence) }
        say(stallSentence)
        say(
            self.timeToAllVisibleMs.map {
                "Every visible row first showed its own icon \(ReportFigure.milliseconds($0)) after the launch."
            }
                ?? "Never did every visible row show its own icon at once.")
        say(screenSentence)
        say("At the end \(self.ownIconsAtEnd) of \(self.visibleRowsAtEnd) rows show their own icon.")
        if self.memoryWarnings > 0 { say(memorySentence) }
        say(appSentence)
        if self.mainQueueFileWrites > 0 {
            say(
                "\(counted(.mainQueueFileWrites)) written on the main queue: the longest block that wrote one "
                    + "held it " + String(format: "%.2f ms", self.mainQueueWriteStallWallMs)
                    + " (wall time, on this machine), a stall the story clock does not count.")
        }
        if self.diskCacheFiles > 0 || self.diskCacheFilesAtStart > 0 {
            say(
                "The disk cache holds \(counted(.diskCacheFiles)) (\(counted(.diskCacheBytes))) at the end.")
        }
        say(
            "The story took \(ReportFigure.milliseconds(self.durationMs)) "
                + "(\(ReportFigure.milliseconds(self.runWallMs)) on this machine).")
        for note in self.clockNotes { say("Not exact: \(note).") }
        if let stuck = self.stuck { say("The run was stopped, stuck: \(stuck)") }
        return lines.joined(separator: "\n")
    }

    /// `figure`'s value in this report with its noun: "28 requests".
    private func counted(_ figure: ReportFigure) -> String { figure.counted(in: self) }

    private var networkSentence: String {
        guard self.requests > 0 else { return "Network: no request." }
        let failed =
            self.failedRequests == 0
            ? "none failed" : self.failedRequests == self.requests ? "every one failed" : "\(self.failedRequests) failed"
        return "Network: \(counted(.requests)) for \(counted(.uniqueURLs)), \(failed); "
            + "\(counted(.bytes)) came, at most \(counted(.maxInFlight)) at once."
    }

    /// What the requests did that a lesson is about, each said only when it happened.
    private var requestDetails: [String] {
        var sentences = [ReportFigure.duplicateRequests, .requestsOnMainQueue].compactMap { $0.said(in: self) }
        // Threads held by a blocking fetch: what step 10's asynchronous operation takes to none.
        if self.requests > 0 {
            sentences.append(
                self.peakBlockedThreads == 0
                    ? "Waiting for the network held no thread."
                    : "Waiting for the network held up to \(counted(.peakBlockedThreads)) at once.")
        }
        sentences += [ReportFigure.requestsStartedWhileScrolling, .requestsAfterRelaunch].compactMap {
            $0.said(in: self)
        }
        if self.launches.count > 1 {
            let each = self.launches.map {
                "\($0.requests) (\(ReportFigure.diskCacheFiles.counted($0.diskCacheFiles)) on disk)"
            }
            sentences.append("Requests at each launch: " + each.joined(separator: ", then ") + ".")
        }
        return sentences
    }

    private var stallSentence: String {
        guard self.maxMainStallMs > 0 else {
            // Writes on the main queue take wall time only, which the frame clock does not see: say it is story time.
            guard self.mainQueueFileWrites == 0 else {
                return "On the story clock the main queue never stalled: none of the \(counted(.frames)) "
                    + "was dropped (its file writes took wall time only, below)."
            }
            return "The main queue never stalled: none of the \(counted(.frames)) was dropped."
        }
        return "The main queue stalled for up to \(ReportFigure.milliseconds(self.maxMainStallMs)): "
            + "\(self.droppedFrames) of \(counted(.frames)) were dropped."
    }

    private var screenSentence: String {
        func frames(_ count: Int) -> String { count == 0 ? "none" : ReportFigure.frames.counted(count) }
        let placeholder =
            self.placeholderFrames == 0 ? "No frame showed a placeholder" : "\(frames(self.placeholderFrames)) showed a placeholder"
        return "\(placeholder), \(frames(self.blankFrames)) a blank row, \(frames(self.wrongImageFrames)) another row's icon."
    }

    private var memorySentence: String {
        let warning = self.memoryWarnings == 1 ? "the memory warning" : "the last of \(self.memoryWarnings) memory warnings"
        let kept =
            self.liveImageBytes == nil ? "nothing was measured" : "the app kept \(counted(.liveImageBytes)) of images"
        return "After \(warning) \(kept); \(counted(.staleDeliveries)) came after it from downloads "
            + "started before it, and \(counted(.requestsAfterMemoryWarning)) started after it."
    }

    private var appSentence: String {
        let violations =
            self.mainThreadViolations == 0
            ? "The app touched no UI off the main queue"
            : "The app touched UI off the main queue \(counted(.mainThreadViolations))"
        let freed =
            self.controllerFreed
            ? "its controller was freed when its screen went away"
            : "its controller was still held when its screen went away"
        return "\(violations); \(freed); its table made \(counted(.cellsCreated))."
    }
}

extension Double {
    /// "20" rather than "20.0", "0.3" rather than "0.30000000000000004".
    var formatted: String {
        self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(format: "%.3g", self)
    }
}

/// A report this build cannot read, said in one sentence naming where it came from.
public struct UnreadableReport: Error, Equatable, CustomStringConvertible {
    /// The file, or the run, the report came from.
    public let source: String
    public let reason: String

    public var description: String { "\(source) cannot be read as a report: \(reason)." }

    /// What a decoding error says of the report, in words rather than Foundation's.
    static func said(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, _)?: "it lacks `\(key.stringValue)`"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            "`\(context.codingPath.map(\.stringValue).joined(separator: "."))` is not what a report holds there"
        case .dataCorrupted(let context)?: "it is not JSON (\(context.debugDescription))"
        default: "\(error)"
        }
    }
}
