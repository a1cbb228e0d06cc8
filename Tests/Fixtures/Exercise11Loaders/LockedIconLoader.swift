import Foundation
import SlowNetwork
import TableKit
import WebImage

// A learner's exercise 11 (CheckEvidenceTests installs it as the workbench's IconLoader.swift): the starting
// loader kept a class, marked `@unchecked Sendable`, and that promise kept: one lock guards everything the
// tasks and the main actor share. Continuations are resumed, and tasks cancelled, outside it.
final class IconLoader: @unchecked Sendable {
    static let maxDownloads = 6

    private let network: SlowNetwork
    private let disk: DiskCache
    /// Guards every property below it.
    private let lock = NSLock()
    private var memory: [String: Image] = [:]
    private var downloads: [String: Download] = [:]
    private var lastID = 0
    private var running = 0
    private var isPaused = false
    private var waitingForPlace: [CheckedContinuation<Void, Never>] = []

    private struct Download {
        let id: Int
        let task: Task<Void, Never>
        var callers: [Int: CheckedContinuation<Image, any Error>] = [:]
    }

    struct NotAnImage: Error {}

    init(network: SlowNetwork, disk: DiskCache) {
        self.network = network
        self.disk = disk
    }

    func image(for url: String) async throws -> Image {
        if let image = lock.withLock({ memory[url] }) { return image }
        if let data = disk.data(forKey: url), let image = Image(data: data) {
            lock.withLock { memory[url] = image }
            return image
        }
        let caller = lock.withLock {
            lastID += 1
            return lastID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                if Task.isCancelled { return continuation.resume(throwing: CancellationError()) }
                join(url, as: caller, continuation)
            }
        } onCancel: {
            Task { self.leave(url, caller) }
        }
    }

    func setPaused(_ paused: Bool) {
        let starting = lock.withLock {
            isPaused = paused
            return placesHandedOver()
        }
        for waiter in starting { waiter.resume() }
    }

    func cancelAllAndClearMemory() {
        let cancelled: [Download] = lock.withLock {
            let all = downloads.keys.sorted().compactMap { downloads[$0] }
            downloads.removeAll()
            memory.removeAll()
            return all
        }
        for download in cancelled {
            download.task.cancel()
            for caller in download.callers.keys.sorted() {
                download.callers[caller]?.resume(throwing: CancellationError())
            }
        }
    }

    private func join(_ url: String, as caller: Int, _ continuation: CheckedContinuation<Image, any Error>) {
        lock.withLock {
            if downloads[url] == nil {
                lastID += 1
                let id = lastID
                downloads[url] = Download(id: id, task: Task { await self.download(url, id: id) })
            }
            downloads[url]?.callers[caller] = continuation
        }
    }

    private func leave(_ url: String, _ caller: Int) {
        let (continuation, orphaned): (CheckedContinuation<Image, any Error>?, Task<Void, Never>?) = lock.withLock {
            guard let continuation = downloads[url]?.callers.removeValue(forKey: caller) else { return (nil, nil) }
            guard let download = downloads[url], download.callers.isEmpty else { return (continuation, nil) }
            downloads[url] = nil
            return (continuation, download.task)
        }
        continuation?.resume(throwing: CancellationError())
        orphaned?.cancel()
    }

    private func download(_ url: String, id: Int) async {
        await takePlace()
        let outcome: Result<Image, any Error>
        do {
            try Task.checkCancellation()
            guard let address = URL(string: url) else { throw URLError(.badURL) }
            let data = try await network.data(for: address)
            guard let image = Image(data: data) else { throw NotAnImage() }
            try? disk.store(data, forKey: url)
            lock.withLock { memory[url] = image }
            outcome = .success(image)
        } catch {
            outcome = .failure(error)
        }
        let (starting, finished): ([CheckedContinuation<Void, Never>], Download?) = lock.withLock {
            running -= 1
            let starting = placesHandedOver()
            guard downloads[url]?.id == id else { return (starting, nil) }
            return (starting, downloads.removeValue(forKey: url))
        }
        for waiter in starting { waiter.resume() }
        guard let finished else { return }
        for caller in finished.callers.keys.sorted() {
            finished.callers[caller]?.resume(with: outcome)
        }
    }

    private func takePlace() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = lock.withLock {
                guard running < Self.maxDownloads, !isPaused, waitingForPlace.isEmpty else {
                    waitingForPlace.append(continuation)
                    return false
                }
                running += 1
                return true
            }
            if now { continuation.resume() }
        }
    }

    /// The waiting downloads that may start now, each counted in; the caller resumes them outside the lock.
    private func placesHandedOver() -> [CheckedContinuation<Void, Never>] {
        var starting: [CheckedContinuation<Void, Never>] = []
        while !isPaused, running < Self.maxDownloads, !waitingForPlace.isEmpty {
            running += 1
            starting.append(waitingForPlace.removeFirst())
        }
        return starting
    }
}
