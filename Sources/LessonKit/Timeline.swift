import SlowNetwork

/// What happened when, for the timeline picture: the main queue's stalls, the
/// script's events, every request on the thread that made it, and (for the
/// steps about operations themselves) each piece of work on the lane it ran on.
public struct Timeline: Sendable {
    public struct Event: Sendable {
        public let ms: Double
        public let label: String

        public init(ms: Double, label: String) {
            self.ms = ms
            self.label = label
        }
    }

    /// One piece of work (an operation, a block, a main-queue update) on the
    /// lane that ran it: "main queue" or "worker N" (see `OperationTrace`).
    public struct Span: Sendable, Equatable {
        public let name: String
        public let lane: String
        public let startMs: Double
        public let endMs: Double

        public init(name: String, lane: String, startMs: Double, endMs: Double) {
            self.name = name
            self.lane = lane
            self.startMs = startMs
            self.endMs = endMs
        }
    }

    public var title = ""
    public var durationMs = 0.0
    public var stalls: [(startMs: Double, endMs: Double)] = []
    public var events: [Event] = []
    public var requests: [Request] = []
    public var spans: [Span] = []

    public init() {}
}
