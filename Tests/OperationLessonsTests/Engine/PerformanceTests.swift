import Foundation
import LessonKit
import SlowNetwork
import Testing

@testable import Lesson02AsyncPlaceholder

/// The harness's own performance: frame work that follows the rows on screen,
/// not the rows in the catalog; live counts that agree with the log; the
/// physical limit computed right.
@Suite struct PerformanceTests {
    /// A catalog 25 times longer, scrolled end to end: the frame handler's
    /// work grows with the rows that scroll into view, never with the catalog.
    /// An O(rows) step per frame would show up as ×25. Step 2:
    /// it downloads every row that scrolls by (no limit, no suspension), and
    /// unlike step 3 it has no data race for the TSan leg to report.
    /// Not in the TSan leg: there every memory access is instrumented, so the
    /// time measures the sanitizer more than the frame handler (the first leg
    /// measures the handler itself).
    @Test(.disabled(if: ThreadSanitizer.isOn, "a cost under TSan measures the sanitizer"))
    func frameWorkDoesNotGrowWithTheCatalog() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("framecost-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var reports: [Int: Report] = [:]
        for rows in [60, 1500] {
            let catalog = try AppCatalog.generated(rows: rows, file: folder.appendingPathComponent("\(rows).plist"))
            let result = await ScenarioRunner.run(
                ScenarioSetup(
                    lesson: "02", title: "async with a placeholder", controller: AppsViewController.self,
                    scenario: .scrollEndToEnd, catalog: catalog,
                    // A display, so the status line is worked out every other frame as on a terminal.
                    display: { _ in }))
            reports[rows] = result.report
        }
        let short = try #require(reports[60])
        let long = try #require(reports[1500])
        print("frame work, wall: 60 rows \(short.frameWorkMeanWallMs) ms, 1500 rows \(long.frameWorkMeanWallMs) ms")
        print("frame work, CPU:  60 rows \(short.frameWorkMeanCPUMs) ms, 1500 rows \(long.frameWorkMeanCPUMs) ms")
        print(
            "recording, CPU:   60 rows \(short.frameRecordingMeanCPUMs) ms, 1500 rows \(long.frameRecordingMeanCPUMs) ms")
        // The scroll reached the end of both catalogs, a frame at a time: 60 s of story at 60 frames a second.
        #expect(short.frames > 3600 && long.frames > 3600)
        #expect(long.uniqueURLs > 100, "the long scroll showed rows all along the catalog")
        // The work compared is the main thread's CPU time, not the wall time:
        // on busy cores a frame's wall time also holds the other processes'
        // turns, which no catalog decides. Generous: a per-frame cost
        // proportional to the rows would be ×25.
        #expect(short.frameWorkMeanCPUMs > 0 && short.frameRecordingMeanCPUMs > 0)
        #expect(long.frameRecordingMeanCPUMs <= 10 * short.frameRecordingMeanCPUMs)
        #expect(long.frameWorkMeanCPUMs <= 10 * short.frameWorkMeanCPUMs)
    }

    /// The status line's live counts, kept as requests come and go, agree with
    /// the counts worked out from the whole log, duplicates included.
    @Test func liveCountsAgreeWithTheLog() async throws {
        // Held: each fetch stays in flight until the test moves the clock, however late its thread starts.
        let clock = ManualClock()
        let network = SlowNetwork(clock: clock)
        defer { network.shutdown() }
        let a = URL(string: "https://cdn.example.com/a.png")!
        let b = URL(string: "https://cdn.example.com/b.png")!
        let ended = Calls<URL>()
        let fetch = { @Sendable (url: URL) in
            Thread.detachNewThread {
                _ = try? network.data(contentsOf: url)
                ended.add(url)
            }
        }
        // Four fetches at once on four threads, three of the same URL: two of
        // those are duplicates in flight. Then one more: a re-download.
        for url in [a, a, a, b] { fetch(url) }
        try await network.wait("four fetches in flight") { network.counts.inFlight == 4 }
        clock.advance(by: 10)
        try await ended.wait(for: 4)
        fetch(a)
        try await network.wait("the re-download in flight") { network.counts.inFlight == 1 }
        clock.advance(by: 10)
        try await ended.wait(for: 5)
        let log = network.log
        let counts = network.counts
        #expect(counts.requests == log.count)
        #expect(counts.uniqueURLs == log.uniqueURLs)
        #expect(counts.duplicateRequests == log.duplicateRequests)
        #expect(counts.inFlight == 0)
        #expect(log.count == 5)
        #expect(log.duplicateRequests == 2)
    }

    @Test func makespanPacksDownloadsOntoTheQueueLimit() {
        // Eight equal downloads, three at a time: three rounds.
        #expect(PhysicalLimit.makespan(Array(repeating: 500, count: 8), lanes: 3) == 1500)
        // No limit: one round.
        #expect(PhysicalLimit.makespan(Array(repeating: 500, count: 8), lanes: 8) == 500)
        // A slow row dominates: it alone takes as long as the others together on the other lanes.
        #expect(PhysicalLimit.makespan([5000, 500, 500, 500], lanes: 2) == 5000)
        #expect(PhysicalLimit.makespan([], lanes: 3) == 0)
    }
}
