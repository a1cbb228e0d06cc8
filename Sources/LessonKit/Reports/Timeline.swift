import SlowNetwork

/// What happened when, for the timeline picture: what the screen showed, the
/// main queue's stalls, the script's events, every request on the thread that
/// made it, and (for the steps about operations themselves) each piece of work
/// on the lane it ran on. Times are milliseconds since the run began: story
/// time for a scenario, wall time for the steps that play their own story.
public struct Timeline: Sendable, Codable {
    public struct Event: Sendable, Codable {
        public let ms: Double
        public let label: String

        public init(ms: Double, label: String) {
            self.ms = ms
            self.label = label
        }
    }

    /// One piece of work (an operation, a block, a main-queue update) on the
    /// lane that ran it: "main queue" or "worker N".
    public struct Span: Sendable, Equatable, Codable {
        public let name: String
        /// What sort of work it is ("unzip", "priority", "execution block"): the
        /// picture gives each kind a colour of its own. The name, unless said.
        public let kind: String
        public let lane: String
        public let startMs: Double
        public let endMs: Double

        public init(name: String, kind: String? = nil, lane: String, startMs: Double, endMs: Double) {
            self.name = name
            self.kind = kind ?? name
            self.lane = lane
            self.startMs = startMs
            self.endMs = endMs
        }
    }

    /// A stretch of time during which every refresh showed the same verdicts:
    /// how many visible rows had their own icon, a placeholder, nothing, or
    /// another row's icon.
    public struct ScreenSpan: Sendable, Equatable, Codable {
        public var startMs: Double
        public var endMs: Double
        public var own = 0
        public var placeholder = 0
        public var blank = 0
        public var wrong = 0

        public init(startMs: Double, endMs: Double, own: Int = 0, placeholder: Int = 0, blank: Int = 0, wrong: Int = 0)
        {
            self.startMs = startMs
            self.endMs = endMs
            self.own = own
            self.placeholder = placeholder
            self.blank = blank
            self.wrong = wrong
        }

        public var rows: Int { own + placeholder + blank + wrong }

        func sameVerdicts(as other: ScreenSpan) -> Bool {
            own == other.own && placeholder == other.placeholder && blank == other.blank && wrong == other.wrong
        }
    }

    public var title = ""
    /// One line of the run's key numbers, printed under the title.
    public var caption = ""
    public var durationMs = 0.0
    /// What the time axis shows.
    public var timeAxis = "story time (s) since the run began"
    public var screen: [ScreenSpan] = []
    public var stalls: [(startMs: Double, endMs: Double)] = []
    /// When every visible row first showed its own icon, if it ever did.
    public var allVisibleMs: Double?
    public var events: [Event] = []
    public var requests: [Request] = []
    public var spans: [Span] = []

    public init() {}

    // Codable by hand for the stalls, which are pairs: a compare run hands
    // each side's timeline from its process to the one that draws them.
    private enum CodingKeys: String, CodingKey {
        case title, caption, durationMs, timeAxis, screen, stalls, allVisibleMs, events, requests, spans
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        caption = try container.decode(String.self, forKey: .caption)
        durationMs = try container.decode(Double.self, forKey: .durationMs)
        timeAxis = try container.decode(String.self, forKey: .timeAxis)
        screen = try container.decode([ScreenSpan].self, forKey: .screen)
        stalls = try container.decode([[Double]].self, forKey: .stalls).compactMap { pair in
            pair.count == 2 ? (startMs: pair[0], endMs: pair[1]) : nil
        }
        allVisibleMs = try container.decodeIfPresent(Double.self, forKey: .allVisibleMs)
        events = try container.decode([Event].self, forKey: .events)
        requests = try container.decode([Request].self, forKey: .requests)
        spans = try container.decode([Span].self, forKey: .spans)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(title, forKey: .title)
        try container.encode(caption, forKey: .caption)
        try container.encode(durationMs, forKey: .durationMs)
        try container.encode(timeAxis, forKey: .timeAxis)
        try container.encode(screen, forKey: .screen)
        try container.encode(stalls.map { [$0.startMs, $0.endMs] }, forKey: .stalls)
        try container.encodeIfPresent(allVisibleMs, forKey: .allVisibleMs)
        try container.encode(events, forKey: .events)
        try container.encode(requests, forKey: .requests)
        try container.encode(spans, forKey: .spans)
    }
}
