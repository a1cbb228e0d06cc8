import Foundation
import LessonKit
import LessonSupport
import TableKit
import Testing

@testable import Lesson10WebImage
@testable import SlowNetwork
@testable import WebImage

#if canImport(Glibc)
    import Glibc
#endif

// Step 10's library where it let go of nothing, let a call through, or kept
// quiet (issue 25, items 14–18): each test failed before its fix.

/// A manager on a held network (nothing arrives until the test moves the
/// clock) with a folder of its own.
struct HeldManager {
    let network: SlowNetwork
    let clock: ManualClock
    let folder = WebRig.folder()
    let manager: ImageManager

    init() {
        (network, clock) = WebRig.heldNetwork()
        manager = ImageManager(network: network, cachesDirectory: folder)
    }

    func tearDown() {
        network.shutdown()
        try? FileManager.default.removeItem(at: folder)
    }
}

@Suite(.serialized) struct WebImageLeakTests {
    /// Cell reuse cancels loads by their tokens: 1,500 loads over 5 URLs,
    /// 1,000 cancelled (half before their disk query runs, half while their
    /// download runs). (6,000 held the scenario gate 7.5 s of a whole suite.) Once every load has ended, the manager holds none: a
    /// cancelled token (and its `completed`, which holds the cell's view) is
    /// let go at once.
    @Test func aLoadCancelledByItsTokenIsLetGo() async throws {
        try await ExclusiveRun.run { _ in
            // Held: nothing arrives until the clock moves, so every cancel lands in time.
            let rig = HeldManager()
            defer { rig.tearDown() }
            let (network, clock, manager) = (rig.network, rig.clock, rig.manager)
            let delivered = Calls<Int>()
            var tokens: [LoadToken] = []
            // Held too, so that the first cancels land before any disk query runs.
            manager.imageCache.ioQueue.isSuspended = true
            for load in 0..<1500 {
                tokens.append(manager.loadImage(with: WebRig.url(load % 5)) { _, _, _, _ in delivered.add(load) })
                if load % 3 == 0 { tokens[load].cancel() }
            }
            manager.imageCache.ioQueue.isSuspended = false
            try await Changes.waitUntilEmpty(manager.imageCache.ioQueue, "the disk queries have run")
            try await network.wait("the five downloads are under way") { network.counts.inFlight == 5 }
            for load in stride(from: 1, to: 1500, by: 3) { tokens[load].cancel() }
            clock.advance(by: 10)
            let calls = try await delivered.wait(for: 500)
            // The downloads queue the file writes: their queue empties first.
            try await Changes.waitUntilEmpty(manager.imageDownloader.queue, "every download has ended")
            try await Changes.waitUntilEmpty(manager.imageCache.ioQueue, "every file write has ended")
            // One more turn of the main queue: nothing else was on its way there.
            await MainActor.run {}
            #expect(manager.runningLoadCount == 0)
            #expect(delivered.all.count == 500 && calls.allSatisfy { $0 % 3 == 2 })
            #expect(network.log.count == 5)
        }
    }

    /// A memory warning's `cancelAll` comes while the completions of loads
    /// that have just ended wait on the main queue: none of them runs.
    @Test func cancelAllSilencesCompletionsAlreadyOnTheirWayToTheMainQueue() async throws {
        try await ExclusiveRun.run { _ in
            let rig = HeldManager()
            defer { rig.tearDown() }
            let (network, clock, manager) = (rig.network, rig.clock, rig.manager)
            let delivered = Calls<Int>()
            for row in 0..<6 { manager.loadImage(with: WebRig.url(row)) { _, _, _, _ in delivered.add(row) } }
            try await network.wait("six downloads under way") { network.counts.inFlight == 6 }
            let (queuedAtCancel, inFlightAtCancel) = await MainActor.run {
                // The main queue is held by this block: the downloads end, and
                // their completions are queued behind it, before the warning.
                // Each request leaves the log in the delivery-queue block that
                // then tells its callers: once none is in flight, one more turn
                // of that queue has told them all.
                clock.advance(by: 10)
                // False only once the hang guard has run out, which `inFlightAtCancel` then says.
                _ = clock.changes.blockUntil { network.counts.inFlight == 0 }
                network.deliveryQueue.sync {}
                let queued = OperationQueue.main.operationCount
                manager.cancelAll()
                return (queued, network.counts.inFlight)
            }
            await MainActor.run {}
            #expect(inFlightAtCancel == 0 && queuedAtCancel >= 6)
            #expect(delivered.all.isEmpty)
            #expect(manager.runningLoadCount == 0)
        }
    }
}

@Suite struct WebImageDiskTests {
    /// A folder where a cache file should be: the write replaces it (the
    /// atomic write's rename cannot), so the key is read from disk from then on.
    @Test func aFolderInPlaceOfACacheFileIsReplaced() throws {
        let folder = WebRig.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = DiskCache(directory: folder, fileExtension: "ppm")
        let blocking = folder.appendingPathComponent(cache.fileName(forKey: "icon"))
        try FileManager.default.createDirectory(at: blocking, withIntermediateDirectories: true)
        try Data("not ours".utf8).write(to: blocking.appendingPathComponent("inside"))
        #expect(cache.data(forKey: "icon") == nil && cache.fileCount == 0)
        try cache.store(Data("icon".utf8), forKey: "icon")
        let relaunched = DiskCache(directory: folder, fileExtension: "ppm")
        #expect(relaunched.data(forKey: "icon") == Data("icon".utf8))
        #expect(CacheFolder.files(in: folder) == [blocking.lastPathComponent])
    }

    /// The harness counts files, not folders: a folder in the cache is no icon.
    @Test func aFolderInTheCachesFolderIsNotCountedAsAFile() throws {
        let folder = WebRig.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("0123456789abcdef.ppm"), withIntermediateDirectories: true)
        try Data("icon".utf8).write(to: folder.appendingPathComponent("fedcba9876543210.ppm"))
        #expect(CacheFolder.files(in: folder) == ["fedcba9876543210.ppm"])
    }

    /// On a clock of its own (1970 and a few days, as the story's), the files
    /// still carry today's wall dates, for any program that looks at the
    /// folder; their age, across a relaunch too, is the clock's.
    @Test func filesCarryWallDatesWhileTheClockDecidesTheirAge() throws {
        let folder = WebRig.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = HandClock()
        let cache = DiskCache(directory: folder, now: { clock.now })
        try cache.store(Data("kept".utf8), forKey: "kept")
        try cache.store(Data("old".utf8), forKey: "old")
        for key in ["kept", "old"] {
            let path = folder.appendingPathComponent(cache.fileName(forKey: key)).path
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            let modified = try #require(attributes[.modificationDate] as? Date)
            #expect(abs(modified.timeIntervalSinceNow) < 600, "\(key) is dated \(modified)")
        }
        clock.advance(days: 4)
        #expect(cache.data(forKey: "kept") != nil)
        clock.advance(days: 4)
        // A relaunch: "old" was last used 8 days ago by the clock, "kept" 4.
        let relaunched = DiskCache(directory: folder, now: { clock.now })
        #expect(relaunched.data(forKey: "old") == nil)
        #expect(relaunched.data(forKey: "kept") == Data("kept".utf8))
    }

    /// The cache's own write failures, told once however many there are.
    @Test func aCacheThatCannotWriteTellsItOnce() async throws {
        try await ExclusiveRun.run { _ in
            let blocker = WebRig.folder()
            try Data("a file, not a folder".utf8).write(to: blocker)
            defer { try? FileManager.default.removeItem(at: blocker) }
            let cache = ImageCache(directory: blocker.appendingPathComponent("Caches"))
            let told = Calls<String>()
            cache.onFirstDiskWriteFailure = { error in told.add("\(error)") }
            let image = try #require(Image(data: IconArt.ppm(for: WebRig.icons[0])))
            for row in 0..<3 {
                cache.store(image, data: IconArt.ppm(for: WebRig.icons[row]), forKey: WebRig.icons[row])
            }
            try await Changes.waitUntilEmpty(cache.ioQueue, "the writes were tried")
            #expect(told.all.count == 1)
            #expect(cache.imageFromMemory(forKey: WebRig.icons[2]) != nil, "kept in memory all the same")
        }
    }
}

/// Step 10 as a learner runs it, on a disk that will not take its files.
@Suite struct Lesson10DiskProcessTests {
    static let notice = "no disk cache: cannot write to "

    /// The default scenario empties the disk cache first; a folder that is
    /// empty already but cannot be removed (immutable as root, read-only
    /// otherwise) is empty all the same: the run plays, and says once that
    /// nothing can be written there.
    @Test func aColdStartOnAnEmptyFolderThatCannotBeRemovedPlaysAndSaysSo() async throws {
        let caches = try ScratchFolder.make("unremovable")
        let folder = caches.appendingPathComponent("OperationLessons/Lesson10WebImage")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try #require(FaultyOutputTests.makeUnremovable(folder), "cannot make a folder that will not empty here")
        defer {
            FaultyOutputTests.makeRemovable(folder)
            ScratchFolder.remove(caches)
        }
        let run = try await LessonProcess.run(
            "Lesson10WebImage", ["--json"], environment: ["XDG_CACHE_HOME": caches.path])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.errors == "\(Self.notice)\(folder.path); icons are kept in memory only\n")
        let report = try run.report()
        #expect(report.ownIconsAtEnd == report.visibleRowsAtEnd && report.diskCacheFiles == 0)
    }

    /// A full disk: a 4 KB tmpfs, filled, as the Caches folder (where this
    /// machine lets the test mount one).
    @Test(.enabled(if: FullDisk.canMount())) func aFullDiskIsSaidOnce() async throws {
        let disk = try FullDisk()
        defer { disk.remove() }
        let run = try await LessonProcess.run(
            "Lesson10WebImage", ["--scenario", "standard", "--json"], environment: ["XDG_CACHE_HOME": disk.root.path])
        #expect(run.status == 0, "\(run.errors)")
        let folder = disk.root.appendingPathComponent("OperationLessons/Lesson10WebImage")
        #expect(run.errors == "\(Self.notice)\(folder.path); icons are kept in memory only\n")
        let report = try run.report()
        #expect(report.ownIconsAtEnd == report.visibleRowsAtEnd && report.diskCacheFiles == 0)
    }

    /// A folder where an icon's file should be is no file: not counted, and
    /// replaced by the icon on the next run, which the run after reads.
    @Test func aFolderInPlaceOfAnIconIsReplacedOnce() async throws {
        let caches = try ScratchFolder.make("folder-icon")
        defer { ScratchFolder.remove(caches) }
        let environment = ["XDG_CACHE_HOME": caches.path]
        let arguments = ["--scenario", "relaunch", "--json"]
        let first = try await LessonProcess.run("Lesson10WebImage", arguments, environment: environment).report()
        let folder = caches.appendingPathComponent("OperationLessons/Lesson10WebImage")
        let name = try #require(CacheFolder.files(in: folder).sorted().first)
        try FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent(name).appendingPathComponent("inside"), withIntermediateDirectories: true)
        let second = try await LessonProcess.run("Lesson10WebImage", arguments, environment: environment).report()
        let third = try await LessonProcess.run("Lesson10WebImage", arguments, environment: environment).report()
        #expect(second.diskCacheFilesAtStart == first.diskCacheFiles - 1)
        #expect(second.requests == 1 && second.diskCacheFiles == first.diskCacheFiles)
        #expect(third.requests == 0)
    }
}

/// A tmpfs of one page, filled: every write in it fails with "No space left on device".
struct FullDisk {
    let root: URL

    /// Whether this machine lets a test mount one (root, with the right to mount).
    static func canMount() -> Bool {
        guard geteuid() == 0, let disk = try? FullDisk() else { return false }
        disk.remove()
        return true
    }

    init() throws {
        root = try ScratchFolder.make("full-disk")
        var mount = ChildProcess(command: ["mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", root.path])
        mount.errors = .discard
        guard try mount.run().status == 0 else {
            ScratchFolder.remove(root)
            throw TestFailure("cannot mount a tmpfs on \(root.path)")
        }
        // The one page, taken: the folders still fit, no file does.
        try? Data(count: 4096).write(to: root.appendingPathComponent("filler"))
    }

    func remove() {
        _ = try? ChildProcess(command: ["umount", root.path]).run()
        ScratchFolder.remove(root)
    }
}

/// Step 10 on a catalog whose one icon URL is 250,000 characters long.
@Suite struct LongIconURLTests {
    static func catalog(urlLength: Int) throws -> (AppCatalog, URL) {
        let folder = try ScratchFolder.make("long-url")
        let prefix = "https://cdn.example.com/"
        let icon = prefix + String(repeating: "a", count: urlLength - prefix.count - 4) + ".png"
        let file = folder.appendingPathComponent("apps.plist")
        try PropertyListEncoder().encode([AppEntry(name: "One", icon: icon, download: "1")]).write(to: file)
        return (try AppCatalog.load(from: file), folder)
    }

    /// Planning so long a URL took longer than the whole story once the clock
    /// counted its fetch in flight: the story ran to its end without the answer.
    @Test func aVeryLongIconURLIsDownloadedLikeAnyOther() async throws {
        let (catalog, folder) = try Self.catalog(urlLength: 250_000)
        defer { ScratchFolder.remove(folder) }
        let report = await ScenarioRunner.run(
            ScenarioSetup(
                lesson: "10", title: "a long URL", controller: Lesson10WebImage.AppsViewController.self,
                scenario: .sharedIconReuse, catalog: catalog)
        ).report
        #expect(report.stuck == nil, "\(report.stuck ?? "")")
        #expect(report.requests == 1 && report.failedRequests == 0)
        #expect(report.ownIconsAtEnd == 1 && report.visibleRowsAtEnd == 1)
    }

    /// A fetch the clock counts in flight with nothing of it due can never
    /// end: the report names it stuck, rather than playing on without it.
    @Test func aFetchWithNothingDueIsNamedStuck() async throws {
        let report = await HarnessTests.run(FetchWithNothingDueController.self, HarnessTests.firstScreen).report
        let stuck = try #require(report.stuck)
        #expect(
            stuck.hasPrefix("1 request in flight with nothing of it due, which the story clock would keep for ever"),
            "\(stuck)")
    }
}

/// Counts a fetch in flight with the story clock and asks for no answer:
/// what the clock sees of a fetch whose deliveries were never asked for.
final class FetchWithNothingDueController: ReloadRowController, @unchecked Sendable {
    required init(environment: LessonEnvironment) {
        super.init(environment: environment)
        _ = environment.network.clock.startTask()
    }
}
