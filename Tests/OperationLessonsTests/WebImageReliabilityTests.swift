import Foundation
import LessonKit
import TableKit
import Testing

@testable import SlowNetwork
@testable import WebImage

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
    /// Cell reuse cancels loads by their tokens: 6,000 loads over 5 URLs,
    /// 4,000 cancelled (half while their disk query waits, half while their
    /// download runs). Once every load has ended, the manager holds none: a
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
            for load in 0..<6000 {
                tokens.append(manager.loadImage(with: WebRig.url(load % 5)) { _, _, _, _ in delivered.add(load) })
                if load % 3 == 0 { tokens[load].cancel() }
            }
            try await WebRig.until("the five downloads are under way") {
                manager.imageCache.ioQueue.operationCount == 0 && network.counts.inFlight == 5
            }
            for load in stride(from: 1, to: 6000, by: 3) { tokens[load].cancel() }
            clock.advance(by: 10)
            let calls = try await delivered.wait(for: 2000)
            try await WebRig.until("every download and file write has ended") {
                manager.imageDownloader.queue.operationCount == 0 && manager.imageCache.ioQueue.operationCount == 0
            }
            // One more turn of the main queue: nothing else was on its way there.
            await MainActor.run {}
            #expect(manager.runningLoadCount == 0)
            #expect(delivered.all.count == 2000 && calls.allSatisfy { $0 % 3 == 2 })
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
            try await WebRig.until("six downloads under way") { network.counts.inFlight == 6 }
            let queuedAtCancel = await MainActor.run {
                // The main queue is held by this block: the downloads end, and
                // their completions are queued behind it, before the warning.
                clock.advance(by: 10)
                network.deliveryQueue.sync {}
                let queued = OperationQueue.main.operationCount
                manager.cancelAll()
                return queued
            }
            await MainActor.run {}
            #expect(queuedAtCancel >= 6)
            #expect(delivered.all.isEmpty)
            #expect(manager.runningLoadCount == 0)
        }
    }
}
