/// One fetch, as the request log keeps it. Times are wall-clock milliseconds
/// since the network was created (the start of the scenario).
public struct Request: Codable, Equatable, Sendable {
    public enum Outcome: String, Codable, Sendable {
        case inFlight, ok, corrupt, truncated, failed
    }

    public let id: Int
    public let url: String
    public let startMs: Double
    public var endMs: Double?
    /// Who made the request: "main queue" or a worker thread's label.
    public let thread: String
    public var outcome: Outcome
    /// Why it failed, when it did.
    public var error: String?
    public var bytes: Int
}

/// Everything the network saw. The counts a lesson reports are computed here,
/// from the log, and nowhere else.
public struct RequestLog: Sendable {
    public private(set) var requests: [Request] = []

    public init(requests: [Request] = []) {
        self.requests = requests
    }

    mutating func begin(url: String, at ms: Double, thread: String) -> Int {
        let id = requests.count
        requests.append(
            Request(id: id, url: url, startMs: ms, endMs: nil, thread: thread, outcome: .inFlight, error: nil, bytes: 0))
        return id
    }

    mutating func end(_ id: Int, at ms: Double, outcome: Request.Outcome, bytes: Int, error: String? = nil) {
        requests[id].endMs = ms
        requests[id].outcome = outcome
        requests[id].bytes = bytes
        requests[id].error = error
    }

    public var count: Int { requests.count }
    public var uniqueURLs: Int { Set(requests.map(\.url)).count }
    public var failed: Int { requests.filter { $0.outcome != .ok && $0.outcome != .inFlight }.count }
    public var bytes: Int { requests.reduce(0) { $0 + $1.bytes } }
    public var inFlight: Int { requests.filter { $0.outcome == .inFlight }.count }

    /// Requests that started while another request for the same URL was still
    /// in flight: the waste an in-flight pool prevents. A request that starts
    /// after the previous one for its URL ended is a re-download, not a duplicate.
    public var duplicateRequests: Int {
        var duplicates = 0
        var byURL: [String: [Request]] = [:]
        for request in requests { byURL[request.url, default: []].append(request) }
        for (_, sameURL) in byURL {
            for (index, request) in sameURL.enumerated() {
                let overlapsEarlier = sameURL[..<index].contains { earlier in
                    (earlier.endMs ?? .infinity) > request.startMs
                }
                if overlapsEarlier { duplicates += 1 }
            }
        }
        return duplicates
    }

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
}
