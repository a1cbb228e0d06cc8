import Foundation
import LessonKit
import SlowNetwork
import Testing

/// The story's end on a `SleepClock` (`waitUntilIdle`): it comes when nothing
/// is left to play, not before (work a delivery handed on, a fetch in
/// flight), and a fetch that can never end is the hang guard's, said loudly.
@Suite struct SleepClockTests {
    /// What a delivery hands to Dispatch is the story's work: the story does
    /// not end while it runs, however long it takes the machine.
    @Test func theStoryEndsOnlyOnceWhatADeliveryHandedOnHasRun() async {
        let (ended, ran, endedAt) = await ExclusiveRun.run { _ in
            let clock = SleepClock()
            defer { clock.shutDown() }
            clock.watchDispatchWork()
            let network = SlowNetwork(conditions: NetworkConditions(), clock: clock)
            let url = URL(string: AppCatalog.bundled().entries[0].icon)!
            let ran = Flag()
            clock.storyTurn {
                _ = network.fetch(url, progress: { _, _ in }) { _ in
                    DispatchQueue.global().async {
                        // Slow work on a loaded machine: wall time the story does not count.
                        Thread.sleep(forTimeInterval: 0.05)
                        ran.set()
                    }
                }
            }
            let ended = await clock.waitUntilIdle()
            return (ended, ran.isSet, clock.now)
        }
        #expect(ended)
        #expect(ran, "the story ended before the work the completion handed on had run")
        let planned = SlowNetwork(conditions: NetworkConditions()).plannedStorySeconds(
            for: AppCatalog.bundled().entries[0].icon)
        #expect(endedAt == .seconds(planned), "it ended at \(endedAt.milliseconds) ms, not when the fetch did")
    }

    /// A clock shut down late, once another run has begun (a check that
    /// shuts its clock down after it left the scenario gate), leaves that run
    /// counted: its work still keeps its story going. (Shut down, the late
    /// clock ended the seam's count of whatever run was on: a step 7 run
    /// played beside exercise 9's checks ended at 2018 frames instead of 516.)
    @Test func aClockShutDownLateLeavesTheNextRunCounted() async {
        let (movedTo, ran) = await ExclusiveRun.run { _ in
            let late = SleepClock()
            late.watchDispatchWork()
            let clock = SleepClock()
            defer { clock.shutDown() }
            clock.watchDispatchWork()
            late.shutDown()
            let ran = Flag()
            clock.storyTurn {
                DispatchQueue.global().async {
                    // Slow work on a loaded machine: wall time the story does not count.
                    Thread.sleep(forTimeInterval: 0.05)
                    ran.set()
                }
            }
            // Something due, so the story has a next step to take too soon.
            _ = await clock.wait(atMost: 1)
            return (clock.now, ran.isSet)
        }
        #expect(movedTo == .seconds(1))
        #expect(ran, "the story moved on before the run's work was done")
    }

    /// A fetch that blocks no thread keeps the story going while it is in
    /// flight; one with nothing of it ever due is a hang, and the guard says so.
    @Test func aFetchInFlightWithNothingDueIsAHangNotTheEnd() async {
        let clock = SleepClock(hangSeconds: 0.2)
        defer { clock.shutDown() }
        _ = clock.startTask()
        let ended = await clock.waitUntilIdle()
        #expect(!ended, "the story ended with a fetch in flight")
        #expect(clock.stuck == "1 request in flight with nothing of it due")
    }
}

/// Set once, read from any thread.
private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
