import Foundation
import SlowNetwork
import TableKit
import WebImage

/// Exercise 11's loader: step 11's, but a class. It does what step 10's
/// library does, in Swift concurrency, and every check of an earlier bug
/// passes on it as on step 11 (the story plays its tasks one at a time); but
/// nothing says that its memory cache and its downloads in flight are
/// touched by one task at a time, so in the Swift 6 language mode the
/// compiler cannot prove it free of data races, and says so. (Step 10's
/// library says so with locks and `@unchecked Sendable`: a promise the
/// compiler takes on trust.)
///
/// - One `Task` per URL, awaited by every caller that wants it (step 5's
///   operation pool); a caller that gives up leaves, and the download is
///   cancelled only when no caller still waits (step 10's token per caller).
/// - At most six downloads at once, as step 10's downloader, and none
///   started while paused (step 7's `isSuspended`); the running ones go on.
/// - Memory, then disk (step 10's `DiskCache`), then the network, which the
///   download awaits without holding a thread (`SlowNetwork.data(for:)`).
final class IconLoader {
    /// How many downloads may run at once: step 10's `maxConcurrentDownloads`.
    static let maxDownloads = 6

    private let network: SlowNetwork
    private let disk: DiskCache
    /// Every icon loaded, by URL: one place to empty when memory runs low.
    private var memory: [String: Image] = [:]
    /// The download under way for each URL and the callers waiting for it.
    private var downloads: [String: Download] = [:]
    private var lastID = 0
    private var running = 0
    private var isPaused = false
    /// Downloads waiting for one of the `maxDownloads` places, first come first served.
    private var waitingForPlace: [CheckedContinuation<Void, Never>] = []

    private struct Download {
        let id: Int
        let task: Task<Void, Never>
        var callers: [Int: CheckedContinuation<Image, any Error>] = [:]
    }

    /// The bytes at a URL that do not decode: nothing to cache, nothing to show.
    struct NotAnImage: Error {}

    init(network: SlowNetwork, disk: DiskCache) {
        self.network = network
        self.disk = disk
    }

    /// The icon at `url`: from memory, from disk, or from the download for it
    /// (started if none is under way). Throws `CancellationError` if the
    /// calling task is cancelled first (the download goes on for the others),
    /// or the download's error.
    func image(for url: String) async throws -> Image {
        if let image = memory[url] { return image }
        if let data = disk.data(forKey: url), let image = Image(data: data) {
            memory[url] = image
            return image
        }
        lastID += 1
        let caller = lastID
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if Task.isCancelled { return continuation.resume(throwing: CancellationError()) }
                join(url, as: caller, continuation)
            }
        } onCancel: {
            Task { self.leave(url, caller) }
        }
    }

    /// Starts no download while paused (the user drags); on resuming, the
    /// downloads waiting start, up to the limit.
    func setPaused(_ paused: Bool) {
        isPaused = paused
        startWaitingDownloads()
    }

    /// A memory warning: every download is cancelled, every caller gets
    /// `CancellationError`, and the memory cache is emptied. The disk stays.
    func cancelAllAndClearMemory() {
        for url in downloads.keys.sorted() {
            guard let download = downloads.removeValue(forKey: url) else { continue }
            download.task.cancel()
            for caller in download.callers.keys.sorted() {
                download.callers[caller]?.resume(throwing: CancellationError())
            }
        }
        memory.removeAll()
    }

    private func join(_ url: String, as caller: Int, _ continuation: CheckedContinuation<Image, any Error>) {
        if downloads[url] == nil {
            lastID += 1
            let id = lastID
            downloads[url] = Download(id: id, task: Task { await download(url, id: id) })
        }
        downloads[url]?.callers[caller] = continuation
    }

    /// The caller gave up (its cell was reused): it gets `CancellationError`;
    /// the download is cancelled if it was the last one waiting.
    private func leave(_ url: String, _ caller: Int) {
        guard let continuation = downloads[url]?.callers.removeValue(forKey: caller) else { return }
        continuation.resume(throwing: CancellationError())
        if let download = downloads[url], download.callers.isEmpty {
            downloads[url] = nil
            download.task.cancel()
        }
    }

    private func download(_ url: String, id: Int) async {
        await takePlace()
        let outcome: Result<Image, any Error>
        do {
            try Task.checkCancellation()
            guard let address = URL(string: url) else { throw URLError(.badURL) }
            let data = try await network.data(for: address)
            guard let image = Image(data: data) else { throw NotAnImage() }
            // A file that cannot be written leaves the icon in memory only; the launch said why.
            try? disk.store(data, forKey: url)
            memory[url] = image
            outcome = .success(image)
        } catch {
            outcome = .failure(error)
        }
        leavePlace()
        // A cancelled download was taken out already, and a new one for the same URL may be under way.
        guard downloads[url]?.id == id, let download = downloads.removeValue(forKey: url) else { return }
        for caller in download.callers.keys.sorted() {
            download.callers[caller]?.resume(with: outcome)
        }
    }

    private func takePlace() async {
        if running < Self.maxDownloads, !isPaused, waitingForPlace.isEmpty {
            running += 1
            return
        }
        // `startWaitingDownloads` counts the place in as it hands it over.
        await withCheckedContinuation { waitingForPlace.append($0) }
    }

    private func leavePlace() {
        running -= 1
        startWaitingDownloads()
    }

    private func startWaitingDownloads() {
        while !isPaused, running < Self.maxDownloads, !waitingForPlace.isEmpty {
            running += 1
            waitingForPlace.removeFirst().resume()
        }
    }
}
