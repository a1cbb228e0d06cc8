import Foundation

/// The knobs of the simulated network. Durations are in story seconds, the
/// tutorial's own times (0.5 s per icon, 5–10 s for a slow row).
public struct NetworkConditions: Sendable {
    /// Time to first byte of every request, in story seconds.
    public var latency: Double = 0.5
    /// Relative spread of the latency: 0.2 means ±20 %, drawn from the seed.
    public var jitter: Double = 0
    /// Bytes per story second; nil for unlimited.
    public var bandwidth: Double? = nil
    /// Probability that a request fails, drawn from the seed.
    public var failRate: Double = 0
    public var seed: UInt64 = 1
    /// Story seconds per wall second, for a network on a `WallClock`: 20 plays
    /// the story 20× faster. A scenario's story clock ignores it.
    public var timeScale: Double = 1
    public var offline = false
    /// How long a request takes to fail while offline. The system answers
    /// "not connected" at once, but not in no time: an app that asks again on
    /// every failure (steps 3 and 4) loops at this pace, never in zero time.
    public var offlineFailureSeconds: Double = 0.02
    /// Per-URL behaviour, checked in order; the first rule that matches wins.
    public var rules: [URLRule] = []

    public init() {}
}

/// A special behaviour for some URLs: the tutorials' slow rows, a URL that
/// fails a few times then works, a server that sends garbage.
public struct URLRule: Sendable {
    public enum Behavior: Codable, Sendable, Equatable {
        /// Takes this many story seconds instead of the latency (the tutorial's
        /// `if row > 9 { sleep(5…10) }`), drawn per request from the seed.
        case slow(ClosedRange<Double>)
        /// The first `n` requests for the URL fail; later ones work.
        case failFirst(Int)
        /// Every byte after the header is scrambled: the image does not decode.
        case corrupt
        /// The body stops halfway: the image does not decode.
        case truncate
        /// The server answers with this HTTP-style status and no body.
        case httpError(Int)
    }

    /// The URLs it applies to, as `SlowNetwork.resourceName` spells them.
    public var urls: Set<String>
    public var behavior: Behavior

    /// `urls` may be spelled as the catalog has them or as `URL(string:)` encodes them.
    public init(urls: Set<String>, behavior: Behavior) {
        self.urls = Set(urls.map(SlowNetwork.resourceName))
        self.behavior = behavior
    }

    public func matches(_ url: String) -> Bool { urls.contains(SlowNetwork.resourceName(url)) }
}

/// Why a fetch failed.
public enum NetworkError: Error, Equatable, Sendable, CustomStringConvertible {
    case offline
    /// The random `failRate` draw or a `failFirst` rule.
    case connectionLost
    case http(Int)
    /// The network was shut down at the end of a scenario.
    case shutDown
    /// The caller cancelled the fetch (`NetworkTask.cancel()`).
    case cancelled

    public var description: String {
        switch self {
        case .offline: "the network is offline"
        case .connectionLost: "the connection was lost"
        case .http(let status): "HTTP \(status)"
        case .shutDown: "the network was shut down"
        case .cancelled: "cancelled"
        }
    }
}
