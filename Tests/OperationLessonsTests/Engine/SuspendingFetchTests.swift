import Foundation
import SlowNetwork
import TableKit
import Testing

/// `SlowNetwork.data(for:)` and its story `Clock` on a clock the test moves
/// by hand (`ManualClock`): a fetch is in flight until the test passes its
/// due time, so every "still waiting" below is for sure.
///
/// Each test's fetch or sleep runs in a task of high priority: at the default one it waited in Swift's pool
/// behind the first turn of every test of the suite, all started at once, and under Thread Sanitizer that wait
/// passed the hang guard's minute (CI4, and CI11's Thread Sanitizer leg: all five waits "still waiting for the
/// request is in flight" while the rest of the suite ran on).
@Suite struct SuspendingFetchTests {
    static let icon = AppCatalog.bundled().entries[0].icon

    @Test func theCallerResumesWhenTheAnswerIsDueWithTheBlockingFetchsBody() async throws {
        let (network, clock) = WebRig.heldNetwork()
        let fetch = Task(priority: .high) { try await network.data(for: URL(string: Self.icon)!) }
        try await network.wait("the request is in flight") { network.counts.inFlight == 1 }
        clock.advance(by: 0.499)
        #expect(network.counts.inFlight == 1, "not due before its 500 ms")
        clock.advance(by: 0.001)
        let body = try await fetch.value
        #expect(body == IconArt.ppm(for: Self.icon))
        let request = try #require(network.log.requests.first)
        #expect(request.outcome == .ok && request.endMs == 500 && request.thread == Request.noThread)
    }

    @Test func cancellingTheCallerEndsTheRequestAsCancelledAtOnce() async throws {
        let (network, clock) = WebRig.heldNetwork()
        let fetch = Task(priority: .high) { try await network.data(for: URL(string: Self.icon)!) }
        try await network.wait("the request is in flight") { network.counts.inFlight == 1 }
        clock.advance(by: 0.2)
        fetch.cancel()
        let outcome = await fetch.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        let request = try #require(network.log.requests.first)
        #expect(request.outcome == .failed && request.error == "cancelled" && request.endMs == 200)
        #expect(network.counts.inFlight == 0)
    }

    @Test func aCallerCancelledBeforeItAsksGetsCancellationErrorAndTheLogSaysSo() async throws {
        let (network, _) = WebRig.heldNetwork()
        let fetch = Task(priority: .high) {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await network.data(for: URL(string: Self.icon)!)
        }
        let outcome = await fetch.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(network.log.requests.map(\.error) == ["cancelled"])
    }

    @Test func offlineTheCallerGetsTheNetworksError() async throws {
        let (network, clock) = WebRig.heldNetwork()
        network.setOffline(true)
        let fetch = Task(priority: .high) { try await network.data(for: URL(string: Self.icon)!) }
        try await network.wait("the request is in flight") { network.counts.inFlight == 1 }
        clock.advance(by: 60)
        let outcome = await fetch.result
        #expect(throws: NetworkError.offline) { try outcome.get() }
    }

    @Test func taskSleepOnTheStoryClockWakesAtItsStoryDeadline() async throws {
        let (network, clock) = WebRig.heldNetwork()
        let woke = Calls<Double>()
        let sleeper = Task(priority: .high) {
            try await Task.sleep(for: .seconds(2), clock: network.storyClock)
            woke.add(network.now())
        }
        try await clock.changes.wait("the sleep is scheduled") { clock.pendingCount == 1 }
        clock.advance(by: 1.999)
        #expect(woke.all.isEmpty)
        clock.advance(by: 0.001)
        try await sleeper.value
        #expect(woke.all == [2000])
    }

    @Test func aCancelledSleepOnTheStoryClockThrowsAtOnce() async throws {
        let (network, clock) = WebRig.heldNetwork()
        let sleeper = Task(priority: .high) { try await Task.sleep(for: .seconds(2), clock: network.storyClock) }
        try await clock.changes.wait("the sleep is scheduled") { clock.pendingCount == 1 }
        sleeper.cancel()
        let outcome = await sleeper.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(network.now() == 0)
    }
}
