import Foundation

/// An in-process "internet" serving the icons, slowly, deterministically, and
/// with the faults you ask for. One instance per scenario: it owns the request
/// log that the scenario's report is computed from, so nothing is shared between
/// runs, tests or threads by accident.
///
/// Its state is guarded by an `NSLock` rather than Synchronization's `Mutex`:
/// on Linux, Thread Sanitizer does not see `Mutex` (its futex calls are not
/// intercepted) and would report every access under it as a data race,
/// burying the lessons' real races. `NSLock` is a pthread mutex, which it sees.
public final class SlowNetwork: @unchecked Sendable {
    public let conditions: NetworkConditions
    private let epoch: ContinuousClock.Instant
    private let isMainQueue: @Sendable () -> Bool
    private let lock = NSLock()
    private var state: State
    /// Sleeping requests wait on this, so `shutdown()` can wake them at once.
    private let wakeUp = NSCondition()
    private let lanes = ThreadLanes()

    private struct State {
        var offline: Bool
        var isShutDown = false
        var attemptsByURL: [String: Int] = [:]
        var log = RequestLog()
        var inFlight = 0
        var lastChangeMs = 0.0
        var lastDeliveryMs = -Double.infinity
        /// Kept as requests come and go, so the live counts cost O(1).
        var inFlightByURL: [String: Int] = [:]
        /// When each request now asleep in the network is due to wake, by request id.
        var dueMsByRequest: [Int: Double] = [:]
        /// Threads other than the main queue's that got a body and have asked
        /// for nothing since: the id of the request that brought it, and how
        /// many looks in a row have found the thread asleep.
        var threadsGivenABody: [KernelThread: (request: Int, asleepLooks: Int)] = [:]
        var duplicateRequests = 0
    }

    /// - Parameters:
    ///   - epoch: time zero of the request log (the scenario's start).
    ///   - isMainQueue: tells the log which requests were made on the main
    ///     queue (the step 1 bug); TableKit knows how to answer it.
    public init(
        conditions: NetworkConditions = NetworkConditions(),
        epoch: ContinuousClock.Instant = .now,
        isMainQueue: @escaping @Sendable () -> Bool = { false }
    ) {
        self.conditions = conditions
        self.epoch = epoch
        self.isMainQueue = isMainQueue
        self.state = State(offline: conditions.offline)
    }

    public var isOffline: Bool { lock.withLock { state.offline } }

    /// Pulls the plug (or plugs it back in). Requests in flight when the plug is
    /// pulled fail when they would have finished.
    public func setOffline(_ offline: Bool) {
        lock.withLock { state.offline = offline }
    }

    /// A copy of the request log as it is now.
    public var log: RequestLog { lock.withLock { state.log } }

    /// Requests in flight now, when a request last started or ended, and when
    /// one last delivered its body whole: what "has the app stopped loading?"
    /// and "is it still bringing icons in?" need, without copying the log.
    public var activity: (inFlight: Int, lastChangeMs: Double, lastDeliveryMs: Double) {
        lock.withLock { (state.inFlight, state.lastChangeMs, state.lastDeliveryMs) }
    }

    /// Whether a request asleep in the network should have woken by `nowMs`
    /// and has not: its thread is waiting for a CPU. The machine is late, not
    /// the app, and the request will end as soon as the thread runs.
    public func hasOverdueRequests(atMs nowMs: Double) -> Bool {
        lock.withLock { state.dueMsByRequest.values.contains { $0 < nowMs } }
    }

    /// Whether the app is still handling a body this network gave it: a thread
    /// that got one, and has asked for nothing since, is busy (running, or
    /// waiting for a CPU or the disk), most likely decoding the bytes, writing
    /// them to disk or handing them to the main queue before it asks for the
    /// next icon. The network is quiet meanwhile; the app is not done.
    ///
    /// A thread found asleep at two looks in a row is done with its body (an
    /// idle worker parks) and is not looked at again until its next one, so a
    /// worker that goes on to other work is not taken for this app's; one look
    /// could catch it blocked for a moment on a lock on its way. Linux only
    /// (`KernelThread`); elsewhere always false. The main queue's own requests
    /// (step 1's) are left out: the main queue is the one asking.
    public func isHandlingABody() -> Bool {
        let given = lock.withLock { state.threadsGivenABody }
        // Read outside the lock: the kernel's answers take a file read each.
        let looks = given.map { (thread: $0.key, request: $0.value.request, isBusy: $0.key.isBusy) }
        return lock.withLock {
            // Not a thread given another body since it was looked at: that one is new.
            for look in looks where state.threadsGivenABody[look.thread]?.request == look.request {
                if look.isBusy {
                    state.threadsGivenABody[look.thread]?.asleepLooks = 0
                } else if given[look.thread]?.asleepLooks ?? 0 >= 1 {
                    state.threadsGivenABody[look.thread] = nil
                } else {
                    state.threadsGivenABody[look.thread]?.asleepLooks += 1
                }
            }
            return looks.contains { $0.isBusy }
        }
    }

    /// The log's headline counts as they are now, kept up to date as requests
    /// start and end: what a status line drawn every frame needs, without
    /// copying the log (whose size grows with every request). They agree with
    /// `log.count`, `log.uniqueURLs` and `log.duplicateRequests`.
    public var counts: NetworkCounts {
        lock.withLock {
            NetworkCounts(
                requests: state.log.count, uniqueURLs: state.attemptsByURL.count,
                duplicateRequests: state.duplicateRequests, inFlight: state.inFlight)
        }
    }

    /// Ends the scenario's network: sleeping requests wake and fail, later ones
    /// fail at once. Work left running by a lesson cannot outlive its scenario.
    public func shutdown() {
        lock.withLock { state.isShutDown = true }
        wakeUp.lock()
        wakeUp.broadcast()
        wakeUp.unlock()
    }

    /// Milliseconds since the epoch, on the same clock as the request log.
    public func now() -> Double {
        epoch.millisecondsUntilNow()
    }

    /// The blocking fetch the tutorials call: `Data(contentsOf:)` /
    /// `dataWithContentsOfURL:`. It blocks the calling thread for the latency,
    /// which is the whole point of step 1 (call it on the main queue and the
    /// app freezes).
    public func data(contentsOf url: URL) throws -> Data {
        let key = url.absoluteString
        let onMainQueue = isMainQueue()
        let thread = lanes.current(onMainQueue: onMainQueue)
        let kernelThread = onMainQueue ? nil : KernelThread.current
        let (id, attempt, shutDown) = lock.withLock {
            // Asking again: it is done with whatever it was given before.
            if let kernelThread { state.threadsGivenABody[kernelThread] = nil }
            let attempt = state.attemptsByURL[key, default: 0]
            state.attemptsByURL[key] = attempt + 1
            let start = now()
            state.inFlight += 1
            state.lastChangeMs = start
            // Another request for this URL has not ended yet: a duplicate in flight.
            if state.inFlightByURL[key, default: 0] > 0 { state.duplicateRequests += 1 }
            state.inFlightByURL[key, default: 0] += 1
            return (state.log.begin(url: key, at: start, thread: thread), attempt, state.isShutDown)
        }
        if shutDown { throw finish(id, failure: .shutDown) }

        let behavior = conditions.rules.first { $0.matches(key) }?.behavior
        let draws = self.draws(for: key, attempt: attempt)
        let storySeconds = draws.storySeconds
        var body = IconArt.ppm(for: key)

        if isOffline { throw finish(id, failure: .offline) }
        let wallSeconds = conditions.wallSeconds(storySeconds)
        lock.withLock { state.dueMsByRequest[id] = now() + wallSeconds * 1000 }
        guard sleep(wallSeconds: wallSeconds) else {
            throw finish(id, failure: .shutDown)
        }
        if isOffline { throw finish(id, failure: .offline) }

        var outcome = Request.Outcome.ok
        switch behavior {
        case .failFirst(let count) where attempt < count:
            throw finish(id, failure: .connectionLost)
        case .httpError(let status):
            throw finish(id, failure: .http(status))
        case .corrupt:
            body = scrambled(body)
            outcome = .corrupt
        case .truncate:
            body = body.prefix(body.count / 2)
            outcome = .truncated
        default:
            break
        }
        if draws.failsByChance { throw finish(id, failure: .connectionLost) }
        end(id, outcome: outcome, bytes: body.count, givenTo: kernelThread)
        return body
    }

    /// How long the `attempt`-th fetch of `url` takes, in story seconds (latency
    /// and jitter, or a slow rule's time, plus the body at the bandwidth): known
    /// in advance, because every draw comes from the seed. What a loader's
    /// physical limit is computed from.
    public func plannedStorySeconds(for url: String, attempt: Int = 0) -> Double {
        draws(for: url, attempt: attempt).storySeconds
    }

    /// Every draw comes from (seed, URL, attempt), never from a shared
    /// generator, so the faults do not depend on which thread ran first.
    private func draws(for key: String, attempt: Int) -> (storySeconds: Double, failsByChance: Bool) {
        var random = SeededGenerator(
            seed: conditions.seed ^ StableHash.fnv1a(key) ^ (UInt64(attempt) &* 0x9E37_79B9_7F4A_7C15))
        let behavior = conditions.rules.first { $0.matches(key) }?.behavior
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

    private func finish(_ id: Int, failure: NetworkError) -> NetworkError {
        end(id, outcome: .failed, bytes: 0, error: failure.description)
        return failure
    }

    private func end(
        _ id: Int, outcome: Request.Outcome, bytes: Int, error: String? = nil, givenTo kernelThread: KernelThread? = nil
    ) {
        lock.withLock {
            // Read the clock under the lock, as `begin` does, so the order of
            // starts and ends in the log is the order the live counts saw.
            let end = now()
            let url = state.log.requests[id].url
            state.inFlightByURL[url, default: 1] -= 1
            if state.inFlightByURL[url] == 0 { state.inFlightByURL[url] = nil }
            state.log.end(id, at: end, outcome: outcome, bytes: bytes, error: error)
            state.dueMsByRequest[id] = nil
            state.inFlight -= 1
            state.lastChangeMs = end
            if outcome == .ok { state.lastDeliveryMs = end }
            if let kernelThread { state.threadsGivenABody[kernelThread] = (id, asleepLooks: 0) }
        }
    }

    /// Sleeps, unless the network is shut down first. Returns false if it was.
    private func sleep(wallSeconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: wallSeconds)
        wakeUp.lock()
        defer { wakeUp.unlock() }
        while !lock.withLock({ state.isShutDown }) {
            if !wakeUp.wait(until: deadline) { break }
        }
        return !lock.withLock { state.isShutDown }
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
