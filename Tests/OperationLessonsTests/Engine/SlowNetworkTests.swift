import Foundation
import LessonKit
import SlowNetwork
import TableKit
import Testing

/// The simulated network on its own, on a wall clock (`WallClock`), fetched
/// from for real: every figure below comes from its request log or from the
/// clock around a real, sleeping fetch. (In a scenario it runs on the story
/// clock: HarnessTests.)
@Suite struct SlowNetworkTests {
    static let icons = AppCatalog.bundled().entries.map(\.icon)

    /// Conditions that run the story 1000× faster: 0.5 s of latency is 0.5 ms.
    static func fast(seed: UInt64 = 1, failRate: Double = 0, rules: [URLRule] = []) -> NetworkConditions {
        var conditions = NetworkConditions()
        conditions.timeScale = 1000
        conditions.jitter = 0.5
        conditions.seed = seed
        conditions.failRate = failRate
        conditions.rules = rules
        return conditions
    }

    /// What a fetch gave: the bytes' fingerprint, or the error.
    enum Outcome: Equatable, Sendable {
        case data(count: Int, image: Bool)
        case error(NetworkError)
    }

    static func fetch(_ network: SlowNetwork, _ url: String) -> Outcome {
        do {
            let data = try network.data(contentsOf: URL(string: url)!)
            return .data(count: data.count, image: Image.fingerprint(of: data) != nil)
        } catch let error as NetworkError {
            return .error(error)
        } catch {
            Issue.record("unexpected error \(error)")
            return .error(.shutDown)
        }
    }

    /// Each URL fetched `rounds` times, one after another, on one thread.
    static func sequentialRun(_ conditions: NetworkConditions, urls: [String], rounds: Int) async
        -> ([Outcome], RequestLog)
    {
        await Rig.onThread {
            let network = SlowNetwork(conditions: conditions)
            var outcomes: [Outcome] = []
            for _ in 0..<rounds {
                for url in urls { outcomes.append(fetch(network, url)) }
            }
            return (outcomes, network.log)
        }
    }

    @Test func theSameSeedGivesTheSameFaultsInTheSameOrder() async {
        let urls = Array(Self.icons.prefix(30))
        let conditions = Self.fast(seed: 42, failRate: 0.3)
        let (first, firstLog) = await Self.sequentialRun(conditions, urls: urls, rounds: 2)
        let (second, secondLog) = await Self.sequentialRun(conditions, urls: urls, rounds: 2)
        #expect(first == second)
        #expect(firstLog.requests.map(\.url) == secondLog.requests.map(\.url))
        #expect(firstLog.requests.map(\.outcome) == secondLog.requests.map(\.outcome))
        // The draws really are random: some fail, most do not, and another seed fails others.
        let failures = first.filter { $0 == .error(.connectionLost) }.count
        #expect(failures == 18, "18 of the 60 draws at 30 %, as seed 42 draws them")
        let (otherSeed, _) = await Self.sequentialRun(Self.fast(seed: 43, failRate: 0.3), urls: urls, rounds: 2)
        #expect(otherSeed != first)
    }

    @Test func faultsDoNotDependOnWhichThreadRanFirst() async {
        // The same fetches made from 12 threads at once, in reverse order, give
        // every (URL, attempt) the same fate as one thread making them in order.
        let urls = Array(Self.icons.prefix(12))
        let conditions = Self.fast(seed: 7, failRate: 0.4)
        let (sequential, _) = await Self.sequentialRun(conditions, urls: urls, rounds: 1)
        let network = SlowNetwork(conditions: conditions)
        let concurrent = await withTaskGroup(of: (Int, Outcome).self) { group in
            for (index, url) in urls.enumerated().reversed() {
                group.addTask { await Rig.onThread { (index, Self.fetch(network, url)) } }
            }
            var outcomes = [Outcome?](repeating: nil, count: urls.count)
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes.compactMap { $0 }
        }
        #expect(concurrent == sequential)
        #expect(sequential.contains(.error(.connectionLost)) && sequential.contains { $0 != .error(.connectionLost) })
    }

    @Test func offlineFailsEveryFetch() async {
        var conditions = Self.fast()
        conditions.offline = true
        let (outcomes, log) = await Self.sequentialRun(conditions, urls: Array(Self.icons.prefix(20)), rounds: 1)
        #expect(outcomes == Array(repeating: .error(.offline), count: 20))
        #expect(log.count == 20)
        #expect(log.failed == 20)
        #expect(log.bytes == 0)

        // Plugged back in, the same network serves again; pulled out, it fails again.
        let startsOffline = conditions
        let outcomesAfterToggling = await Rig.onThread {
            let network = SlowNetwork(conditions: startsOffline)
            let offline = Self.fetch(network, Self.icons[0])
            network.setOffline(false)
            let online = Self.fetch(network, Self.icons[0])
            network.setOffline(true)
            return [offline, online, Self.fetch(network, Self.icons[0])]
        }
        #expect(outcomesAfterToggling[0] == .error(.offline))
        #expect(outcomesAfterToggling[1] == .data(count: IconArt.ppm(for: Self.icons[0]).count, image: true))
        #expect(outcomesAfterToggling[2] == .error(.offline))
    }

    /// Wall time of `count` fetches one after another.
    static func wallTime(_ conditions: NetworkConditions, count: Int) async -> Duration {
        await Rig.onThread {
            let network = SlowNetwork(conditions: conditions)
            let clock = ContinuousClock()
            return clock.measure {
                for url in icons.prefix(count) { _ = fetch(network, url) }
            }
        }
    }

    @Test func latencyScalesWithTheTimeScale() async {
        // 0.5 s of story latency: 500 ms of wall time at 1×, 50 ms at 10×.
        var slow = NetworkConditions()
        slow.timeScale = 1
        var fast = slow
        fast.timeScale = 10
        let slowTime = await Self.wallTime(slow, count: 2)
        let fastTime = await Self.wallTime(fast, count: 2)
        // A sleep never ends early, so the lower bounds are exact; the ratio is
        // generous (10× expected; 3× holds with up to 150 ms of scheduling noise a
        // fetch: under the thread sanitizer on two busy cores we saw 85 ms).
        #expect(slowTime >= .milliseconds(1000))
        #expect(fastTime >= .milliseconds(100))
        #expect(slowTime / fastTime > 3, "10× slower expected: \(slowTime) vs \(fastTime)")
    }

    @Test func bandwidthAddsTransferTime() async {
        let bodyBytes = Double(IconArt.ppm(for: Self.icons[0]).count)
        var wide = NetworkConditions()
        wide.latency = 0
        wide.bandwidth = bodyBytes / 0.1  // 100 ms a body
        var narrow = wide
        narrow.bandwidth = bodyBytes / 0.4  // 400 ms a body
        let wideTime = await Self.wallTime(wide, count: 2)
        let narrowTime = await Self.wallTime(narrow, count: 2)
        #expect(wideTime >= .milliseconds(200))
        #expect(narrowTime >= .milliseconds(800))
        // No ratio between the two: on a loaded machine (the TSan leg) a delayed
        // thread inflates either time, and a ratio of 1.02 was seen. Noise only
        // adds time, so the lower bounds above are what holds: each body took
        // at least its size divided by the bandwidth.
    }

    @Test func concurrentFetchesFromManyThreadsAreAllLogged() async {
        var conditions = NetworkConditions()
        conditions.latency = 2  // 20 ms of wall time each, so the threads overlap
        conditions.timeScale = 100
        let network = SlowNetwork(conditions: conditions)
        let threads = 15  // 60 fetches: one per icon of the catalog
        let fetchesPerThread = 4
        let outcomes = await withTaskGroup(of: [Outcome].self) { group in
            for thread in 0..<threads {
                group.addTask {
                    await Rig.onThread {
                        (0..<fetchesPerThread).map { Self.fetch(network, Self.icons[thread * fetchesPerThread + $0]) }
                    }
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        let log = network.log
        #expect(outcomes.count == threads * fetchesPerThread)
        #expect(log.count == threads * fetchesPerThread)
        #expect(log.requests.map(\.id) == Array(0..<log.count))
        #expect(log.uniqueURLs == threads * fetchesPerThread)
        #expect(log.requests.allSatisfy { $0.outcome == .ok && $0.endMs != nil })
        #expect(log.inFlight == 0 && network.counts.inFlight == 0)
        let servedBytes = Self.icons.prefix(threads * fetchesPerThread).map { IconArt.ppm(for: $0).count }
        #expect(log.bytes == servedBytes.reduce(0, +))
        #expect(log.maxInFlight > 1)
        #expect(log.requests.allSatisfy { $0.thread == Request.worker })
        #expect(log.duplicateRequests == 0)
    }

    @Test func aSecondFetchWhileTheFirstIsInFlightIsADuplicate() async throws {
        let url = Self.icons[5]
        // The first fetch of this URL takes 1000 story seconds: it is certainly
        // still in flight when the second starts. `shutdown()` ends both.
        var conditions = NetworkConditions()
        conditions.rules = [URLRule(urls: [url], behavior: .slow(1000...1000))]
        // Real time, watched: the test waits for each fetch to be logged in flight.
        let network = SlowNetwork(conditions: conditions, clock: WatchedClock(WallClock()))
        // Should a wait below throw, the two fetches still end now, not 1000 s from now.
        defer { network.shutdown() }
        let clock = ContinuousClock()
        async let first = Rig.onThread { Self.fetch(network, url) }
        try await network.wait("the first fetch in flight") { network.counts.inFlight == 1 }
        async let second = Rig.onThread { Self.fetch(network, url) }
        try await network.wait("the second fetch in flight") { network.counts.inFlight == 2 }
        #expect(network.log.duplicateRequests == 1)

        // Shutdown wakes both sleeping fetches at once: they fail, 1000 s early.
        // Timed from the shutdown, not from the start: getting two threads going in a busy test
        // process is not what this measures.
        let shutAt = clock.now
        network.shutdown()
        let outcomes = await [first, second]
        #expect(outcomes == [.error(.shutDown), .error(.shutDown)])
        #expect(clock.now - shutAt < .seconds(30))
        let log = network.log
        #expect(log.count == 2 && log.uniqueURLs == 1 && log.inFlight == 0)
        #expect(log.duplicateRequests == 1)
        // After shutdown, new fetches fail at once.
        #expect(await Rig.onThread { Self.fetch(network, url) } == .error(.shutDown))
    }

    /// A fetch that blocks no thread, cancelled long before its answer is
    /// due, is over: it ends as cancelled, and the next fetch of its URL is
    /// not a duplicate (the log once kept the cancelled one in flight until
    /// its planned end, and counted a reused cell's new request as one).
    @Test func aCancelledFetchIsNoLongerInFlight() async throws {
        let url = Self.icons[6]
        var conditions = NetworkConditions()
        conditions.rules = [URLRule(urls: [url], behavior: .slow(1000...1000))]
        let network = SlowNetwork(conditions: conditions)
        defer { network.shutdown() }
        let first: Result<Data, NetworkError> = await withCheckedContinuation { done in
            let task = network.fetch(URL(string: url)!, progress: { _, _ in }) { done.resume(returning: $0) }
            task.cancel()
        }
        #expect(first == .failure(.cancelled))
        #expect(network.counts.inFlight == 0)
        let second = network.fetch(URL(string: url)!, progress: { _, _ in }) { _ in }
        let log = network.log
        #expect(log.count == 2)
        #expect(log.requests.first?.error == NetworkError.cancelled.description)
        #expect(log.duplicateRequests == 0)
        second.cancel()
    }

    @Test func aFetchAfterTheFirstFinishedIsNotADuplicate() async {
        let (outcomes, log) = await Self.sequentialRun(Self.fast(), urls: [Self.icons[0], Self.icons[1]], rounds: 3)
        #expect(outcomes.allSatisfy { if case .data(_, image: true) = $0 { true } else { false } })
        #expect(log.count == 6)
        #expect(log.uniqueURLs == 2)
        #expect(log.duplicateRequests == 0)
        #expect(log.maxInFlight == 1)
    }

    @Test func failFirstNFailsThatManyTimesThenWorks() async {
        let url = Self.icons[2]
        let conditions = Self.fast(rules: [URLRule(urls: [url], behavior: .failFirst(2))])
        let (outcomes, log) = await Self.sequentialRun(conditions, urls: [url, Self.icons[3]], rounds: 3)
        let ofURL = stride(from: 0, to: outcomes.count, by: 2).map { outcomes[$0] }
        let ofOther = stride(from: 1, to: outcomes.count, by: 2).map { outcomes[$0] }
        #expect(ofURL[0] == .error(.connectionLost))
        #expect(ofURL[1] == .error(.connectionLost))
        #expect(ofURL[2] == .data(count: IconArt.ppm(for: url).count, image: true))
        #expect(ofOther.allSatisfy { $0 != .error(.connectionLost) })
        #expect(log.failed == 2)
        #expect(log.requests.filter { $0.outcome == .failed }.allSatisfy { $0.error == "the connection was lost" })
    }

    @Test(arguments: [URLRule.Behavior.corrupt, .truncate])
    func brokenBodiesArriveButDoNotDecode(behavior: URLRule.Behavior) async throws {
        let url = Self.icons[4]
        let conditions = Self.fast(rules: [URLRule(urls: [url], behavior: behavior)])
        let (data, log) = await Rig.onThread {
            let network = SlowNetwork(conditions: conditions)
            return (try? network.data(contentsOf: URL(string: url)!), network.log)
        }
        let body = try #require(data)
        let intact = IconArt.ppm(for: url)
        #expect(body != intact)
        #expect(body.starts(with: Data("P6\n".utf8)), "still looks like an image")
        await ExclusiveRun.run { _ in
            #expect(Image(data: body) == nil)
            #expect(Image(data: intact) != nil)
        }
        let request = try #require(log.requests.first)
        #expect(request.outcome == (behavior == .corrupt ? .corrupt : .truncated))
        #expect(request.bytes == body.count)
        if behavior == .truncate { #expect(body.count == intact.count / 2) }
        // A body that does not decode counts as a failed request.
        #expect(log.failed == 1)
    }

    @Test func aURLIsOneResourceHoweverItIsSpelled() async {
        // The catalog's spelling and `URL(string:)`'s percent-encoded one name
        // the same icon and match the same rules.
        let spelled = "https://cdn.example.com/应用 7/icon.png"
        let encoded = URL(string: spelled)!.absoluteString
        #expect(encoded != spelled)
        #expect(IconArt.ppm(for: spelled) == IconArt.ppm(for: encoded))
        let conditions = Self.fast(rules: [URLRule(urls: [spelled], behavior: .httpError(410))])
        let (outcomes, log) = await Self.sequentialRun(conditions, urls: [encoded, Self.icons[0]], rounds: 1)
        #expect(outcomes[0] == .error(.http(410)))
        #expect(outcomes[1] == .data(count: IconArt.ppm(for: Self.icons[0]).count, image: true))
        #expect(log.requests.map(\.url) == [encoded, Self.icons[0]])
    }

    @Test func anHTTPErrorThrowsItsStatusAndNoBody() async {
        let url = Self.icons[6]
        let conditions = Self.fast(rules: [URLRule(urls: [url], behavior: .httpError(404))])
        let (outcomes, log) = await Self.sequentialRun(conditions, urls: [url], rounds: 2)
        #expect(outcomes == [.error(.http(404)), .error(.http(404))])
        #expect(log.failed == 2 && log.bytes == 0)
        #expect(log.requests.allSatisfy { $0.error == "HTTP 404" })
    }
}
