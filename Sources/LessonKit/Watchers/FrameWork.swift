import Foundation

/// What the frame handler itself cost: the whole of each frame (the script's
/// scrolling, which runs the lesson's `cellForRowAt`, plus the recording) and
/// the recording alone (snapshot, judging each visible row, the status line).
///
/// It is how the harness shows that it scales: a frame's work must grow with
/// the rows on screen, never with the rows in the catalog or the requests made.
/// Each is kept as wall time (what a person waited) and as the main thread's
/// CPU time (the work done): on a busy machine the wall time also holds
/// whatever the scheduler gave other processes meanwhile, the CPU time does not.
struct FrameWork {
    private(set) var frames = 0
    private var totalMs = 0.0
    private var recordingMs = 0.0
    private var totalCPUMs = 0.0
    private var recordingCPUMs = 0.0
    private(set) var maxMs = 0.0

    /// An instant of the frame handler's thread: the wall clock, and the CPU time that thread has used.
    struct Reading {
        let wall: ContinuousClock.Instant
        let cpu: Duration

        static var now: Reading { Reading(wall: .now, cpu: threadCPUTime()) }

        private static func threadCPUTime() -> Duration {
            var time = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
            return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
        }
    }

    /// A frame that began at `start`, finished scrolling (and began recording) at `scripted`, and ended at `end`.
    mutating func add(start: Reading, scripted: Reading, end: Reading) {
        let total = (end.wall - start.wall).milliseconds
        frames += 1
        totalMs += total
        recordingMs += (end.wall - scripted.wall).milliseconds
        totalCPUMs += (end.cpu - start.cpu).milliseconds
        recordingCPUMs += (end.cpu - scripted.cpu).milliseconds
        maxMs = max(maxMs, total)
    }

    var meanMs: Double { mean(totalMs) }
    var recordingMeanMs: Double { mean(recordingMs) }
    var cpuMeanMs: Double { mean(totalCPUMs) }
    var recordingCPUMeanMs: Double { mean(recordingCPUMs) }

    private func mean(_ sum: Double) -> Double { frames == 0 ? 0 : sum / Double(frames) }
}

extension Duration {
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
