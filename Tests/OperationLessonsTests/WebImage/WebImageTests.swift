import Foundation
import LessonKit
import SlowNetwork
import TableKit
import Testing

@testable import WebImage

// Step 10's library, part by part, on a network of its own (real time, short
// latencies). Each test takes the scenario gate (`ExclusiveRun.run`): its
// images, its operations and its main-queue work stay out of any scenario
// another test plays meanwhile.

enum WebRig {
    static let icons = AppCatalog.bundled().entries.map(\.icon)

    static func url(_ row: Int) -> URL { URL(string: icons[row])! }

    static func network(latency: Double = 0.05, rules: [URLRule] = [], offline: Bool = false) -> SlowNetwork {
        var conditions = NetworkConditions()
        conditions.latency = latency
        conditions.rules = rules
        conditions.offline = offline
        return SlowNetwork(conditions: conditions, clock: WatchedClock(WallClock(timeScale: conditions.timeScale)))
    }

    /// A network whose time moves only when the test advances its clock.
    static func heldNetwork() -> (SlowNetwork, ManualClock) {
        let clock = ManualClock()
        return (SlowNetwork(conditions: NetworkConditions(), clock: clock), clock)
    }

    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("webimage-\(UUID().uuidString)")
    }


    /// The icon the network serves for `row`, decoded: what a load must show.
    static func fingerprint(_ row: Int) -> Int? { Image.fingerprint(of: IconArt.ppm(for: icons[row])) }
}

/// Collects the calls of a handler, from any thread, and lets a test wait for them.
final class Calls<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Value] = []
    private let changes = Changes()

    func add(_ value: Value) {
        lock.withLock { values.append(value) }
        changes.notify()
    }
    var all: [Value] { lock.withLock { values } }

    @discardableResult
    func wait(for count: Int) async throws -> [Value] {
        try await changes.wait("\(count) calls") { self.all.count >= count }
        return all
    }
}

/// A clock a test moves by hand.
final class HandClock: @unchecked Sendable {
    private let lock = NSLock()
    private var time = Date(timeIntervalSince1970: 1_000_000)
    var now: Date { lock.withLock { time } }
    func advance(days: Double) { lock.withLock { time += days * 24 * 60 * 60 } }
    func advance(seconds: Double) { lock.withLock { time += seconds } }
}

@Suite struct MemoryCacheTests {
    @Test func theLeastRecentlyUsedGoFirstWhenTheCostIsOverTheLimit() {
        let cache = MemoryCache<String, Int>(totalCostLimit: 300)
        cache.setValue(1, forKey: "a", cost: 100)
        cache.setValue(2, forKey: "b", cost: 100)
        cache.setValue(3, forKey: "c", cost: 100)
        // Reading "a" makes it the most recently used: "b" is now the oldest.
        #expect(cache.value(forKey: "a") == 1)
        cache.setValue(4, forKey: "d", cost: 100)
        #expect(cache.value(forKey: "b") == nil)
        #expect(cache.keysByRecentUse == ["d", "a", "c"])
        #expect(cache.totalCost == 300)
        // One costlier than the rest together pushes them all out.
        cache.setValue(5, forKey: "e", cost: 250)
        #expect(cache.keysByRecentUse == ["e"])
        // And one costlier than the whole limit is not kept at all.
        cache.setValue(6, forKey: "f", cost: 301)
        #expect(cache.count == 0 && cache.totalCost == 0)
    }

    @Test func aCountLimitAndRemoveAll() {
        let cache = MemoryCache<String, Int>(totalCostLimit: .max, countLimit: 2)
        for (index, key) in ["a", "b", "c"].enumerated() { cache.setValue(index, forKey: key, cost: 1) }
        #expect(cache.keysByRecentUse == ["c", "b"])
        cache.setValue(9, forKey: "b", cost: 5)
        #expect(cache.keysByRecentUse == ["b", "c"] && cache.totalCost == 6)
        cache.removeAll()
        #expect(cache.count == 0 && cache.totalCost == 0 && cache.value(forKey: "b") == nil)
    }

    @Test func emptiedItFreesTheImages() async throws {
        try await ExclusiveRun.run { instruments in
            let cache = MemoryCache<String, Image>(totalCostLimit: ImageCache.defaultMemoryCostLimit)
            for row in 0..<4 {
                let image = try #require(Image(data: IconArt.ppm(for: WebRig.icons[row])))
                cache.setValue(image, forKey: WebRig.icons[row], cost: image.byteCount)
            }
            #expect(instruments.liveImageBytes == 4 * 16 * 16 * 3)
            cache.removeAll()
            #expect(instruments.liveImageBytes == 0)
        }
    }
}

@Suite struct DiskCacheTests {
    @Test func namesAreHashesOfTheWholeURL() {
        let cache = DiskCache(directory: WebRig.folder(), fileExtension: "ppm")
        let qq = cache.fileName(forKey: "https://cdn.example.com/apps/qq/icon.png")
        let wechat = cache.fileName(forKey: "https://cdn.example.com/apps/wechat/icon.png")
        #expect(qq != wechat)
        #expect(qq.count == 16 + 4 && qq.hasSuffix(".ppm"))
        let crafted = cache.fileName(forKey: "https://evil.example.com/..%2F..%2Fx.ppm")
        #expect(!crafted.contains("/") && !crafted.contains(".."))
    }

    /// The default, SDWebImage's: a week since a file was last used.
    @Test func filesPastTheirAgeAreDropped() throws {
        let folder = WebRig.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = HandClock()
        let cache = DiskCache(directory: folder, now: { clock.now })
        #expect(cache.maxAge == 7 * 24 * 60 * 60)
        try cache.store(Data("old".utf8), forKey: "old")
        clock.advance(days: 3)
        try cache.store(Data("new".utf8), forKey: "new")
        clock.advance(days: 5)
        // "old" was last used 8 days ago, "new" 5: only "old" is too old.
        #expect(cache.data(forKey: "old") == nil)
        #expect(cache.data(forKey: "new") == Data("new".utf8))
        #expect(cache.fileCount == 1)
        // A read is a use: read now, "new" lasts another week.
        clock.advance(days: 6)
        #expect(cache.removeExpired() == 0)
        clock.advance(days: 1.5)
        #expect(cache.removeExpired() == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func theFolderStaysWithinItsSizeOldestUsedFirstOut() throws {
        let folder = WebRig.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = HandClock()
        let cache = DiskCache(directory: folder, maxSize: 3000, now: { clock.now })
        for row in 0..<3 {
            try cache.store(IconArt.ppm(for: WebRig.icons[row]), forKey: WebRig.icons[row])
            clock.advance(seconds: 1)
        }
        let size = IconArt.ppm(for: WebRig.icons[0]).count
        #expect(cache.totalSize == 3 * size && 3 * size <= 3000)
        // Row 0 read again: row 1 is now the least recently used.
        #expect(cache.data(forKey: WebRig.icons[0]) != nil)
        clock.advance(seconds: 1)
        try cache.store(IconArt.ppm(for: WebRig.icons[3]), forKey: WebRig.icons[3])
        #expect(cache.totalSize <= 3000)
        #expect(!cache.contains(key: WebRig.icons[1]))
        #expect([0, 2, 3].allSatisfy { cache.contains(key: WebRig.icons[$0]) })
        // A relaunch reads the same order back from the files' dates.
        let relaunched = DiskCache(directory: folder, maxSize: 2 * size, now: { clock.now })
        #expect(relaunched.removeExpired() == 1)
        #expect(!relaunched.contains(key: WebRig.icons[2]))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 2)
    }
}

@Suite struct ImageDownloadOperationTests {
    @Test func itFinishesWhenItsFetchDoesAndReportsRisingProgress() async throws {
        try await ExclusiveRun.run { _ in
            // Held: the fetch stays in flight until the clock moves.
            let (network, clock) = WebRig.heldNetwork()
            defer { network.shutdown() }
            let progress = Calls<(Int, Int)>()
            let results = Calls<Result<Data, NetworkError>>()
            let operation = ImageDownloadOperation(
                url: WebRig.url(0), network: network, progress: { progress.add(($0, $1)) }, completion: results.add)
            #expect(operation.isAsynchronous && !operation.isExecuting && !operation.isFinished)
            let queue = OperationQueue()
            queue.addOperation(operation)
            try await network.wait("the fetch is under way") { network.counts.inFlight == 1 }
            #expect(operation.isExecuting && !operation.isFinished)
            clock.advance(by: 10)
            let result = try await results.wait(for: 1)
            #expect(try result[0].get() == IconArt.ppm(for: WebRig.icons[0]))
            try await Changes.waitUntilEmpty(queue, "the queue lets it go")
            #expect(operation.isFinished && !operation.isExecuting)
            // Four chunks, rising, the last one the whole body.
            let body = IconArt.ppm(for: WebRig.icons[0]).count
            #expect(progress.all.map(\.0) == [body / 4, body / 2, body * 3 / 4, body])
            #expect(progress.all.allSatisfy { $0.1 == body })
        }
    }

    @Test func cancelledBeforeItStartsItFinishesWithoutAskingTheNetwork() async throws {
        try await ExclusiveRun.run { _ in
            let network = WebRig.network()
            defer { network.shutdown() }
            let results = Calls<Result<Data, NetworkError>>()
            let operation = ImageDownloadOperation(
                url: WebRig.url(0), network: network, progress: { _, _ in }, completion: results.add)
            let queue = OperationQueue()
            queue.isSuspended = true
            queue.addOperation(operation)
            operation.cancel()
            #expect(!operation.isFinished, "not before the queue starts it")
            queue.isSuspended = false
            try await Changes.waitUntilEmpty(queue, "the queue lets it go")
            #expect(operation.isFinished)
            #expect(results.all.count == 1)
            #expect(results.all.first.map { if case .failure(.cancelled) = $0 { true } else { false } } == true)
            #expect(network.log.count == 0)
        }
    }

    @Test func cancelledWhileItFetchesItFinishesAtOnce() async throws {
        try await ExclusiveRun.run { _ in
            // 1000 s: it can only end early.
            let network = WebRig.network(rules: [URLRule(urls: [WebRig.icons[0]], behavior: .slow(1000...1000))])
            defer { network.shutdown() }
            let results = Calls<Result<Data, NetworkError>>()
            let operation = ImageDownloadOperation(
                url: WebRig.url(0), network: network, progress: { _, _ in }, completion: results.add)
            let queue = OperationQueue()
            queue.addOperation(operation)
            try await network.wait("the fetch is under way") { network.counts.inFlight == 1 }
            operation.cancel()
            // Finished without its 1000 s fetch: at once, or, when the cancel came as `start()` was storing its
            // task and `start()` completes it instead, a moment later on `start()`'s thread.
            try await Changes.waitUntilEmpty(queue, "the queue lets it go")
            #expect(operation.isFinished && !operation.isExecuting)
            #expect(results.all.count == 1)
            // A cancel that came while `start()` was still storing its task is
            // passed on to the task by `start()` a moment later.
            try await network.wait("the fetch is cancelled") { network.counts.inFlight == 0 }
            let log = network.log
            #expect(log.count == 1 && log.inFlight == 0)
            #expect(log.requests[0].error == NetworkError.cancelled.description)
        }
    }

    /// Forty downloads, six at a time, and not one thread waits in the
    /// network: an asynchronous operation returns from `start()` at once.
    @Test func manyDownloadsHoldNoThread() async throws {
        try await ExclusiveRun.run { _ in
            let network = WebRig.network(latency: 0.1)
            defer { network.shutdown() }
            let results = Calls<Result<Data, NetworkError>>()
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 6
            for row in 0..<40 {
                queue.addOperation(
                    ImageDownloadOperation(
                        url: WebRig.url(row), network: network, progress: { _, _ in }, completion: results.add))
            }
            try await results.wait(for: 40)
            let log = network.log
            #expect(log.count == 40 && log.maxInFlight == 6)
            #expect(log.requests.allSatisfy { $0.thread == Request.noThread })
        }
    }
}

@Suite(.serialized) struct ImageDownloaderTests {
    typealias Outcome = Result<ImageDownloader.DownloadedImage, WebImageError>

    @Test func twoCallersOfOneURLShareOneDownload() async throws {
        try await ExclusiveRun.run { _ in
            let network = WebRig.network()
            defer { network.shutdown() }
            let downloader = ImageDownloader(network: network)
            let first = Calls<Outcome>()
            let second = Calls<Outcome>()
            _ = downloader.downloadImage(with: WebRig.url(0), completion: first.add)
            _ = downloader.downloadImage(with: WebRig.url(0), completion: second.add)
            #expect(downloader.callerCount(for: WebRig.url(0)) == 2)
            let a = try await first.wait(for: 1)
            let b = try await second.wait(for: 1)
            // One request, one decode: both callers get the same image.
            #expect(network.log.count == 1)
            #expect(try a[0].get().image === b[0].get().image)
        }
    }

    /// A reused cell gives up its own claim; the download goes on for the
    /// other caller. Only the last caller's cancel stops it.
    @Test func cancellingOneCallersTokenLeavesTheDownloadToTheOther() async throws {
        try await ExclusiveRun.run { _ in
            // Held: each fetch stays in flight until the clock moves, so the cancels below land while it runs.
            let (network, clock) = WebRig.heldNetwork()
            defer { network.shutdown() }
            let downloader = ImageDownloader(network: network)
            let leaving = Calls<Outcome>()
            let staying = Calls<Outcome>()
            let token = downloader.downloadImage(with: WebRig.url(0), completion: leaving.add)
            _ = downloader.downloadImage(with: WebRig.url(0), completion: staying.add)
            try await network.wait("the fetch is under way") { network.counts.inFlight == 1 }
            downloader.cancel(token)
            #expect(downloader.callerCount(for: WebRig.url(0)) == 1)
            clock.advance(by: 10)
            let outcome = try await staying.wait(for: 1)
            #expect(try outcome[0].get().image.fingerprint == WebRig.fingerprint(0))
            #expect(leaving.all.isEmpty)
            #expect(network.log.failed == 0)

            // The last caller's cancel stops the download itself.
            let alone = downloader.downloadImage(with: WebRig.url(1)) { _ in }
            try await network.wait("the second fetch is under way") { network.counts.inFlight == 1 }
            downloader.cancel(alone)
            try await Changes.waitUntilEmpty(downloader.queue, "the queue is empty")
            try await network.wait("the fetch is cancelled") { network.counts.inFlight == 0 }
            #expect(network.log.requests.last?.error == NetworkError.cancelled.description)
            #expect(downloader.currentDownloadCount == 0)
        }
    }

    /// A download whose operation was cancelled (here by hand, as the naive
    /// cancel does) is not joined by a new caller before it leaves the list:
    /// the newcomer gets a download of its own, and its image, not "cancelled".
    @Test func aCancelledDownloadIsNotJoined() async throws {
        try await ExclusiveRun.run { _ in
            // Held: a fetch stays in flight until the clock moves, however late a busy machine runs this test
            // (a wall-clock network of two seconds' latency held the scenario gate those two seconds).
            let (network, clock) = WebRig.heldNetwork()
            defer { network.shutdown() }
            let downloader = ImageDownloader(network: network)
            // Held, so the cancelled operation stays on the list until the queue starts it.
            downloader.isSuspended = true
            let first = Calls<Outcome>()
            let token = downloader.downloadImage(with: WebRig.url(0), completion: first.add)
            token.operation?.cancel()
            let second = Calls<Outcome>()
            _ = downloader.downloadImage(with: WebRig.url(0), completion: second.add)
            downloader.isSuspended = false
            try await network.wait("the newcomer's fetch is under way") { network.counts.inFlight == 1 }
            clock.advance(by: 10)
            let outcome = try await second.wait(for: 1)
            #expect(try outcome[0].get().image.fingerprint == WebRig.fingerprint(0))
            let cancelled = try await first.wait(for: 1)
            #expect(cancelled.first.map { if case .failure(.network(.cancelled)) = $0 { true } else { false } } == true)
            #expect(network.log.count == 1, "the cancelled one never asked")
        }
    }

    @Test(arguments: [ImageDownloader.ExecutionOrder.firstInFirstOut, .lastInFirstOut])
    func theOrderDownloadsStartIn(_ order: ImageDownloader.ExecutionOrder) async throws {
        try await ExclusiveRun.run { _ in
            let network = WebRig.network(latency: 0.02)
            defer { network.shutdown() }
            let downloader = ImageDownloader(network: network, maxConcurrentDownloads: 1, executionOrder: order)
            downloader.isSuspended = true
            let done = Calls<Int>()
            for row in 0..<4 { _ = downloader.downloadImage(with: WebRig.url(row)) { _ in done.add(row) } }
            downloader.isSuspended = false
            let rows = try await done.wait(for: 4)
            #expect(rows == (order == .firstInFirstOut ? [0, 1, 2, 3] : [3, 2, 1, 0]))
            #expect(network.log.maxInFlight == 1)
        }
    }

    /// `.lowPriority` waits while a table moves under the user's hand; a
    /// normal download does not.
    @Test func aLowPriorityDownloadWaitsUntilTheTableComesToRest() async throws {
        try await ExclusiveRun.run { _ in
            let network = WebRig.network(latency: 0.02)
            defer { network.shutdown() }
            let downloader = ImageDownloader(network: network)
            let table = Unchecked(TableView(visibleRowCount: 8))
            await MainActor.run {
                NotificationCenter.default.post(name: TableView.didBeginTrackingNotification, object: table.value)
            }
            let low = Calls<Outcome>()
            let normal = Calls<Outcome>()
            _ = downloader.downloadImage(with: WebRig.url(0), options: .lowPriority, completion: low.add)
            _ = downloader.downloadImage(with: WebRig.url(1), completion: normal.add)
            try await normal.wait(for: 1)
            // Not synchronisation: a window (ten latencies) in which the low one would have come.
            try await Task.sleep(for: .milliseconds(200))
            #expect(low.all.isEmpty)
            #expect(network.log.count == 1)
            await MainActor.run {
                NotificationCenter.default.post(name: TableView.didEndTrackingNotification, object: table.value)
            }
            try await low.wait(for: 1)
            #expect(network.log.count == 2)
        }
    }
}

@Suite(.serialized) struct ImageManagerTests {
    typealias Loaded = (image: Image?, error: WebImageError?, cacheType: ImageCacheType)

    static func load(_ manager: ImageManager, _ row: Int, _ options: WebImageOptions = []) async -> Loaded {
        await withCheckedContinuation { done in
            manager.loadImage(with: WebRig.url(row), options: options) { image, error, cacheType, _ in
                done.resume(returning: (image, error, cacheType))
            }
        }
    }

    @Test func memoryThenDiskThenNetwork() async throws {
        try await ExclusiveRun.run { _ in
            let network = WebRig.network()
            defer { network.shutdown() }
            let folder = WebRig.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let manager = ImageManager(network: network, cachesDirectory: folder)
            let first = await Self.load(manager, 0)
            #expect(first.cacheType == .none && first.image?.fingerprint == WebRig.fingerprint(0))
            let again = await Self.load(manager, 0)
            #expect(again.cacheType == .memory && again.image === first.image)
            // A relaunch: a new manager on the same folder.
            try await Changes.waitUntilEmpty(manager.imageCache.ioQueue, "the file is written")
            let relaunched = ImageManager(network: network, cachesDirectory: folder)
            let fromDisk = await Self.load(relaunched, 0)
            #expect(fromDisk.cacheType == .disk && fromDisk.image?.fingerprint == WebRig.fingerprint(0))
            #expect(network.log.count == 1)
        }
    }

    /// Bytes that are not an image: asked for once, then not again unless `.retryFailed`.
    @Test func aURLThatFailedForGoodIsNotAskedForAgainUnlessRetryFailed() async throws {
        await ExclusiveRun.run { _ in
            let network = WebRig.network(rules: [URLRule(urls: [WebRig.icons[2]], behavior: .corrupt)])
            defer { network.shutdown() }
            let folder = WebRig.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let manager = ImageManager(network: network, cachesDirectory: folder)
            #expect(await Self.load(manager, 2).error == .badImageData)
            #expect(manager.isFailedURL(WebRig.url(2)))
            #expect(await Self.load(manager, 2).error == .failedBefore)
            #expect(network.log.count == 1)
            #expect(await Self.load(manager, 2, .retryFailed).error == .badImageData)
            #expect(network.log.count == 2)
        }
    }

    /// Offline is not the URL's fault: it is asked for again, and loads once online.
    @Test func aNetworkErrorDoesNotBlockTheURL() async throws {
        await ExclusiveRun.run { _ in
            let network = WebRig.network(offline: true)
            defer { network.shutdown() }
            let folder = WebRig.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let manager = ImageManager(network: network, cachesDirectory: folder)
            #expect(await Self.load(manager, 0).error == .network(.offline))
            #expect(!manager.isFailedURL(WebRig.url(0)))
            network.setOffline(false)
            #expect(await Self.load(manager, 0).image != nil)
        }
    }

    @Test func cacheMemoryOnlyWritesNoFile() async throws {
        try await ExclusiveRun.run { _ in
            let network = WebRig.network()
            defer { network.shutdown() }
            let folder = WebRig.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let manager = ImageManager(network: network, cachesDirectory: folder)
            #expect(await Self.load(manager, 0, .cacheMemoryOnly).cacheType == .none)
            #expect(await Self.load(manager, 1).cacheType == .none)
            try await Changes.waitUntilEmpty(manager.imageCache.ioQueue, "the file is written")
            #expect(!manager.imageCache.disk.contains(key: WebRig.icons[0]))
            #expect(manager.imageCache.disk.contains(key: WebRig.icons[1]))
        }
    }

    /// The cached image at once, then the server asked again; the same image
    /// back says nothing more.
    @Test func refreshCachedShowsTheCachedImageAndAsksAgain() async throws {
        try await ExclusiveRun.run { _ in
            let network = WebRig.network()
            defer { network.shutdown() }
            let folder = WebRig.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let manager = ImageManager(network: network, cachesDirectory: folder)
            _ = await Self.load(manager, 0)
            let refreshed = await Self.load(manager, 0, .refreshCached)
            #expect(refreshed.cacheType == .memory)
            try await network.wait("the second request ends") { network.log.count == 2 && network.log.inFlight == 0 }
            // The download's completion lets the load go before its operation leaves the queue.
            try await Changes.waitUntilEmpty(manager.imageDownloader.queue, "the download is handed over")
            #expect(manager.runningLoadCount == 0)
        }
    }

    @Test func cancelAllSilencesEveryLoadAndStopsTheirDownloads() async throws {
        try await ExclusiveRun.run { _ in
            let network = WebRig.network(latency: 1000)
            defer { network.shutdown() }
            let folder = WebRig.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let manager = ImageManager(network: network, cachesDirectory: folder)
            let calls = Calls<Int>()
            for row in 0..<8 { manager.loadImage(with: WebRig.url(row)) { _, _, _, _ in calls.add(row) } }
            try await network.wait("six fetches under way") { network.counts.inFlight == 6 }
            manager.cancelAll()
            try await Changes.waitUntilEmpty(manager.imageDownloader.queue, "the queue is empty")
            try await network.wait("the fetches are cancelled") { network.counts.inFlight == 0 }
            #expect(calls.all.isEmpty)
            // The six running were cancelled; the two waiting never asked.
            #expect(network.log.count == 6)
        }
    }
}

@Suite(.serialized) struct ImageViewWebImageTests {
    /// Two image views on one URL; one is reused for another URL while the
    /// download runs. The other still gets its image: the reuse cancelled
    /// one caller, not the download.
    @Test func aReusedViewGivesUpItsLoadNotTheDownloadAnotherViewWaitsFor() async throws {
        try await ExclusiveRun.run { _ in
            // Held: the reuse below lands while the fetch is in flight.
            let (network, clock) = WebRig.heldNetwork()
            defer { network.shutdown() }
            let folder = WebRig.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let manager = ImageManager(network: network, cachesDirectory: folder)
            let views = Unchecked([ImageView(), ImageView()])
            let completed = Calls<(view: Int, fingerprint: Int?, cacheType: ImageCacheType)>()
            await MainActor.run {
                for index in 0..<2 {
                    views.value[index].setImage(
                        with: WebRig.url(0), placeholder: .placeholder, manager: manager,
                        completed: { image, _, cacheType, _ in completed.add((index, image?.fingerprint, cacheType)) })
                }
            }
            try await network.wait("the fetch is under way") { network.counts.inFlight == 1 }
            let placeholderWhileLoading = await MainActor.run {
                // View 1 is reused for row 3.
                views.value[1].setImage(
                    with: WebRig.url(3), placeholder: .placeholder, manager: manager,
                    completed: { image, _, cacheType, _ in completed.add((1, image?.fingerprint, cacheType)) })
                return views.value[0].image?.isPlaceholder == true && views.value[0].progress == 0
            }
            #expect(placeholderWhileLoading)
            try await network.wait("row 3's fetch is under way too") { network.counts.inFlight == 2 }
            clock.advance(by: 10)
            let calls = try await completed.wait(for: 2)
            #expect(calls.contains { $0.view == 0 && $0.fingerprint == WebRig.fingerprint(0) })
            #expect(calls.contains { $0.view == 1 && $0.fingerprint == WebRig.fingerprint(3) })
            #expect(!calls.contains { $0.view == 1 && $0.fingerprint == WebRig.fingerprint(0) })
            let shown = await MainActor.run { views.value.map { ($0.image?.fingerprint, $0.progress) } }
            #expect(shown[0].0 == WebRig.fingerprint(0) && shown[1].0 == WebRig.fingerprint(3))
            #expect(shown.allSatisfy { $0.1 == nil })
            #expect(network.log.count == 2 && network.log.failed == 0)
        }
    }

    /// A row scrolled out and back in its own cell asks again for the URL it
    /// is still loading: the load goes on, with the new callbacks.
    @Test func askingAgainForTheURLAViewIsLoadingKeepsTheLoad() async throws {
        try await ExclusiveRun.run { _ in
            // Held: the reuse below lands while the fetch is in flight.
            let (network, clock) = WebRig.heldNetwork()
            defer { network.shutdown() }
            let folder = WebRig.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let manager = ImageManager(network: network, cachesDirectory: folder)
            let view = Unchecked(ImageView())
            let completed = Calls<String>()
            await MainActor.run {
                view.value.setImage(
                    with: WebRig.url(0), manager: manager, completed: { _, _, _, _ in completed.add("first") })
            }
            try await network.wait("the fetch is under way") { network.counts.inFlight == 1 }
            await MainActor.run {
                view.value.setImage(
                    with: WebRig.url(0), manager: manager, completed: { _, _, _, _ in completed.add("second") })
            }
            clock.advance(by: 10)
            try await completed.wait(for: 1)
            #expect(completed.all == ["second"])
            #expect(network.log.count == 1 && network.log.failed == 0)
        }
    }
}
