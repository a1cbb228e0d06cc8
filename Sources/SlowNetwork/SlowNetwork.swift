import Foundation
import HarnessSync
import UnseenSync

/// An in-process "internet" serving the icons, slowly, deterministically, and
/// with the faults you ask for. One instance per scenario: it owns the request
/// log that the scenario's report is computed from, so nothing is shared between
/// runs, tests or threads by accident.
///
/// Every time it keeps is its clock's (`NetworkClock`): in a scenario, story
/// time, so a request's start, end and outcome are the same in every run.
///
/// Its locks are hidden from Thread Sanitizer (`Locked`): the app's threads
/// ask the network, and the main queue reads its log.
public final class SlowNetwork: @unchecked Sendable {
    public let conditions: NetworkConditions
    public let clock: any NetworkClock
    /// Where `fetch` reports: one serial queue, as a session's delegate queue.
    let deliveryQueue = DispatchQueue(label: "SlowNetwork delivery")
    private let isMainQueue: @Sendable () -> Bool
    private let lock = Locked()
    private var state: State
    /// Rules added while the scenario plays (`addRule`), before the conditions' own.
    /// A lock of their own: they are read under `lock` too.
    private let addedRulesLock = Locked()
    private var addedRules: [URLRule] = []

    private struct State {
        var offline: Bool
        var isShutDown = false
        var log = RequestLog()
        /// Per URL: how many requests started before the latest instant one
        /// did, and how many started at that instant. A request's draws follow
        /// from the first count, so requests that start together draw alike
        /// whichever thread got here first.
        var startsByURL: [String: (instant: StoryTime, before: Int, atInstant: Int)] = [:]
        /// When each request for a URL now in flight is due to end, by request id.
        var dueByURL: [String: [(id: Int, due: StoryTime)]] = [:]
    }

    /// - Parameters:
    ///   - clock: what requests wait on; by default real time at the
    ///     conditions' `timeScale`.
    ///   - isMainQueue: tells the log which requests were made on the main
    ///     queue (the step 1 bug); TableKit knows how to answer it.
    public init(
        conditions: NetworkConditions = NetworkConditions(),
        clock: (any NetworkClock)? = nil,
        isMainQueue: @escaping @Sendable () -> Bool = { false }
    ) {
        self.conditions = conditions
        self.clock = clock ?? WallClock(timeScale: conditions.timeScale)
        self.isMainQueue = isMainQueue
        self.state = State(offline: conditions.offline)
    }

    public var isOffline: Bool { lock.withLock { state.offline } }

    /// Takes over the requests of the app's earlier processes (a relaunch
    /// starts a new one on the same network): they stay in the log, and a
    /// URL's next request is its next attempt. Called before any request.
    public func carryOver(_ requests: [Request]) {
        lock.withLock {
            state.log = RequestLog(requests: requests)
            for request in requests { _ = attempt(of: request.url, at: .milliseconds(request.startMs)) }
        }
    }

    /// Pulls the plug (or plugs it back in). Requests in flight when the plug is
    /// pulled fail when they would have finished.
    public func setOffline(_ offline: Bool) {
        lock.withLock { state.offline = offline }
    }

    /// From now on, requests for the rule's URLs behave as it says.
    public func addRule(_ rule: URLRule) {
        addedRulesLock.withLock { addedRules.insert(rule, at: 0) }
    }

    private func behavior(for key: String) -> URLRule.Behavior? {
        (addedRulesLock.withLock { addedRules } + conditions.rules).first { $0.matches(key) }?.behavior
    }

    /// A copy of the request log as it is now.
    public var log: RequestLog { lock.withLock { state.log } }

    /// The log's headline counts as they are now, kept up to date as requests
    /// start and end: what a status line drawn every frame needs, without
    /// copying the log.
    public var counts: NetworkCounts {
        lock.withLock {
            NetworkCounts(
                requests: state.log.count, uniqueURLs: state.log.uniqueURLs,
                duplicateRequests: state.log.duplicateRequests, inFlight: state.log.inFlight)
        }
    }

    /// Ends the scenario's network: sleeping requests wake and fail, later ones
    /// fail at once. Work left running by a lesson cannot outlive its scenario.
    public func shutdown() {
        lock.withLock { state.isShutDown = true }
        clock.shutDown()
    }

    /// Milliseconds since the clock began, the unit of the request log.
    public func now() -> Double {
        clock.now.milliseconds
    }

    /// The blocking fetch the tutorials call: `Data(contentsOf:)` /
    /// `dataWithContentsOfURL:`. It blocks the calling thread until the answer
    /// is due, which is the whole point of step 1 (call it on the main queue
    /// and the app freezes).
    public func data(contentsOf url: URL) throws -> Data {
        // The whole request out of Thread Sanitizer's sight: what the network
        // does on the caller's thread (its locks, the clock's, Foundation's
        // inside `URL`) must not order the caller after the main queue.
        unseen_begin()
        defer { unseen_end() }
        let key = url.absoluteString
        let thread = isMainQueue() ? Request.mainQueue : Request.worker
        guard let start = clock.admit(key) else { throw NetworkError.shutDown }
        defer { clock.leave() }
        let request = begin(key, at: start, thread: thread)
        if request.failure == NetworkError.shutDown { throw finish(request.id, failure: .shutDown) }
        guard clock.sleep(until: start + request.duration) else { throw finish(request.id, failure: .shutDown) }
        if let failure = request.failure ?? (isOffline ? NetworkError.offline : nil) {
            throw finish(request.id, failure: failure)
        }
        end(request.id, outcome: request.bodyOutcome, bytes: request.body.count)
        return request.body
    }

    /// A request as it starts: its log entry, how long it will take, how it
    /// will fail if it does, and the body it will bring if it does not.
    struct Begun {
        let id: Int
        let start: StoryTime
        let duration: StoryTime
        let failure: NetworkError?
        let body: Data
        let bodyOutcome: Request.Outcome
    }

    /// Logs a request starting at `start` and plans it.
    func begin(_ key: String, at start: StoryTime, thread: String) -> Begun {
        let behavior = self.behavior(for: key)
        let (id, plan) = lock.withLock { () -> (Int, Plan) in
            let attempt = self.attempt(of: key, at: start)
            var plan = self.plan(for: key, attempt: attempt, behavior: behavior, offline: state.offline)
            if state.isShutDown { plan.failure = .shutDown }
            let due = start + plan.duration
            // Another request for this URL is still in flight: a duplicate.
            // Judged by when each is due, so a request that ends at the instant
            // this one starts is not counted, whichever thread logs first.
            let inFlight = (state.dueByURL[key] ?? []).filter { $0.due > start }
            let id = state.log.begin(url: key, at: start.milliseconds, thread: thread, isDuplicate: !inFlight.isEmpty)
            state.dueByURL[key] = inFlight + [(id, due)]
            return (id, plan)
        }
        var body = IconArt.ppm(for: key)
        var outcome = Request.Outcome.ok
        switch behavior {
        case .corrupt:
            body = scrambled(body)
            outcome = .corrupt
        case .truncate:
            body = body.prefix(body.count / 2)
            outcome = .truncated
        default:
            break
        }
        return Begun(
            id: id, start: start, duration: plan.duration, failure: plan.failure, body: body, bodyOutcome: outcome)
    }

    /// How long the `attempt`-th fetch of `url` takes, in story seconds (latency
    /// and jitter, or a slow rule's time, plus the body at the bandwidth): known
    /// in advance, because every draw comes from the seed. What a loader's
    /// physical limit is computed from.
    public func plannedStorySeconds(for url: String, attempt: Int = 0) -> Double {
        draws(for: url, attempt: attempt).storySeconds
    }

    /// What a request will do: how long it takes and how it fails, if it does.
    private struct Plan {
        var duration: StoryTime
        var failure: NetworkError?
    }

    private func plan(for key: String, attempt: Int, behavior: URLRule.Behavior?, offline: Bool) -> Plan {
        if offline { return Plan(duration: .seconds(conditions.offlineFailureSeconds), failure: .offline) }
        let draws = self.draws(for: key, attempt: attempt)
        var plan = Plan(duration: .seconds(draws.storySeconds))
        switch behavior {
        case .failFirst(let count) where attempt < count: plan.failure = .connectionLost
        case .httpError(let status): plan.failure = .http(status)
        default: if draws.failsByChance { plan.failure = .connectionLost }
        }
        return plan
    }

    /// The request's attempt number for its URL: how many requests for it
    /// started at earlier instants. Called under the lock.
    private func attempt(of key: String, at start: StoryTime) -> Int {
        var starts = state.startsByURL[key] ?? (start, 0, 0)
        if start > starts.instant {
            starts = (start, starts.before + starts.atInstant, 0)
        }
        starts.atInstant += 1
        state.startsByURL[key] = starts
        return starts.before
    }

    /// Every draw comes from (seed, URL, attempt), never from a shared
    /// generator, so the faults do not depend on which thread ran first.
    private func draws(for key: String, attempt: Int) -> (storySeconds: Double, failsByChance: Bool) {
        var random = SeededGenerator(
            seed: conditions.seed ^ StableHash.fnv1a(key) ^ (UInt64(attempt) &* 0x9E37_79B9_7F4A_7C15))
        let behavior = self.behavior(for: key)
        let jitter = conditions.jitter * (2 * random.nextUnit() - 1)
        var storySeconds = conditions.latency * (1 + jitter)
        if case .slow(let range) = behavior {
            storySeconds = range.lowerBound + (range.upperBound - range.lowerBound) * random.nextUnit()
        }
        let failsByChance = random.nextUnit() < conditions.failRate
        if let bandwidth = conditions.bandwidth, bandwidth > 0 {
            storySeconds += Double(IconArt.ppm(for: key).count) / bandwidth
        }
        return (max(0, storySeconds), failsByChance)
    }

    func finish(_ id: Int, failure: NetworkError) -> NetworkError {
        end(id, outcome: .failed, bytes: 0, error: failure.description)
        return failure
    }

    func end(_ id: Int, outcome: Request.Outcome, bytes: Int, error: String? = nil) {
        lock.withLock {
            // Read the clock under the lock, as `begin` does, so the order of
            // starts and ends in the log is the order the live counts saw.
            let end = clock.now
            let url = state.log.requests[id].url
            // A request cancelled before its time is no longer in flight either.
            if var dues = state.dueByURL[url] {
                dues.removeAll { $0.id == id || $0.due <= end }
                state.dueByURL[url] = dues.isEmpty ? nil : dues
            }
            state.log.end(id, at: end.milliseconds, outcome: outcome, bytes: bytes, error: error)
        }
    }

    /// Keeps the PPM header (so it still looks like an image) and garbles the
    /// rest the way a broken proxy would: the header then promises more pixels
    /// than arrive, and the decoder refuses it.
    private func scrambled(_ body: Data) -> Data {
        guard let headerEnd = headerLength(of: body) else { return Data(body.reversed()) }
        var garbage = Data(body.prefix(headerEnd))
        garbage.append(contentsOf: body.dropFirst(headerEnd).prefix(17).map { $0 ^ 0x5A })
        garbage.append(Data("<html>502 Bad Gateway</html>".utf8))
        return garbage
    }

    private func headerLength(of body: Data) -> Int? {
        var newlines = 0
        for (offset, byte) in body.enumerated() where byte == UInt8(ascii: "\n") {
            newlines += 1
            if newlines == 3 { return offset + 1 }
        }
        return nil
    }
}

extension SlowNetwork {
    /// The name the network knows a URL by: what `URL(string:)` makes of the
    /// string. Foundation percent-encodes spaces and non-ASCII letters, so a
    /// catalog's `…/应用 1/icon.png` is fetched as `…/%E5%BA%94%E7%94%A8%201/icon.png`;
    /// both spellings must serve the same icon and match the same rules.
    public static func resourceName(_ urlString: String) -> String {
        URL(string: urlString)?.absoluteString ?? urlString
    }
}

/// The request log's headline numbers at one moment (see `SlowNetwork.counts`).
public struct NetworkCounts: Equatable, Sendable {
    public let requests: Int
    public let uniqueURLs: Int
    public let duplicateRequests: Int
    public let inFlight: Int
}
