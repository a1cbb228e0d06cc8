import SlowNetwork

/// What happened when, for the timeline picture: the main queue's stalls, the
/// script's events, and every request on the thread that made it.
public struct Timeline: Sendable {
    public struct Event: Sendable {
        public let ms: Double
        public let label: String
    }

    public var title = ""
    public var durationMs = 0.0
    public var stalls: [(startMs: Double, endMs: Double)] = []
    public var events: [Event] = []
    public var requests: [Request] = []

    public init() {}
}
