/// One fetch, as the request log keeps it. Times are milliseconds on the
/// network's clock (in a scenario, story time since the run began).
public struct Request: Codable, Equatable, Sendable {
    public enum Outcome: String, Codable, Sendable {
        case inFlight, ok, corrupt, truncated, failed
    }

    /// Who made a request: the main queue (step 1's bug), a worker thread it
    /// blocked, or nobody's thread (`SlowNetwork.fetch`).
    public static let mainQueue = "main queue"
    public static let worker = "worker"
    public static let noThread = "no thread"

    public let id: Int
    public let url: String
    public let startMs: Double
    public var endMs: Double?
    /// `Request.mainQueue`, `Request.worker` or `Request.noThread`.
    public let thread: String
    public var outcome: Outcome
    /// Why it failed, when it did.
    public var error: String?
    public var bytes: Int
    /// Whether another request for the same URL was in flight when it started.
    public var isDuplicate: Bool
}

/// Everything the network saw. The counts a lesson reports are computed here,
/// from the log, and nowhere else; each is kept as requests start and end, so
/// reading one costs the same after ten requests or a hundred thousand.
public struct RequestLog: Sendable {
    public private(set) var requests: [Request] = []
    /// Requests that started while another request for the same URL was still
    /// in flight: the waste an in-flight pool prevents. A request that starts
    /// after the previous one for its URL ended is a re-download, not a duplicate.
    public private(set) var duplicateRequests = 0
    public private(set) var failed = 0
    public private(set) var bytes = 0
    public private(set) var inFlight = 0
    private var urls: Set<String> = []

    public init(requests: [Request] = []) {
        for request in requests {
            let id = begin(url: request.url, at: request.startMs, thread: request.thread, isDuplicate: request.isDuplicate)
            if let endMs = request.endMs {
                end(id, at: endMs, outcome: request.outcome, bytes: request.bytes, error: request.error)
            }
        }
    }

    mutating func begin(url: String, at ms: Double, thread: String, isDuplicate: Bool) -> Int {
        let id = requests.count
        requests.append(
            Request(
                id: id, url: url, startMs: ms, endMs: nil, thread: thread, outcome: .inFlight, error: nil, bytes: 0,
                isDuplicate: isDuplicate))
        urls.insert(url)
        inFlight += 1
        if isDuplicate { duplicateRequests += 1 }
        return id
    }

    mutating func end(_ id: Int, at ms: Double, outcome: Request.Outcome, bytes: Int, error: String? = nil) {
        requests[id].endMs = ms
        requests[id].outcome = outcome
        requests[id].bytes = bytes
        requests[id].error = error
        inFlight -= 1
        self.bytes += bytes
        if outcome != .ok { failed += 1 }
    }

    public var count: Int { requests.count }
    public var uniqueURLs: Int { urls.count }

    /// The most requests in flight at one moment.
    public var maxInFlight: Int {
        var events: [(Double, Int)] = []
        for request in requests {
            events.append((request.startMs, 1))
            events.append((request.endMs ?? .infinity, -1))
        }
        // Ends sort before starts at the same instant: back-to-back is not overlap.
        events.sort { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }
        var current = 0
        var most = 0
        for (_, delta) in events {
            current += delta
            most = max(most, current)
        }
        return most
    }

    /// The requests in a fixed order (start, then URL, then end): threads that
    /// start requests at the same instant log them in any order.
    public var inStoryOrder: [Request] {
        requests.sorted {
            ($0.startMs, $0.url, $0.endMs ?? .infinity) < ($1.startMs, $1.url, $1.endMs ?? .infinity)
        }
    }
}
