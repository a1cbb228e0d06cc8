import Foundation
import LessonKit
import Testing

@testable import SlowNetwork

/// The scoreboard's numbers, step by step, on the standard scenario (seed 1):
/// the suite's regression net. Every figure is story time or a count, the same
/// in every run, and asserted exactly.
@Suite struct ScoreboardTests {
    /// What `swift run lessons scoreboard` shows for a step.
    struct Expected: CustomTestStringConvertible, Sendable {
        let step: Int
        let requests: Int
        var uniqueURLs = 28
        let bytes: Int
        /// Image bytes the app kept after the memory warning.
        let keptAfterWarning: Int
        let wrongImageFrames: Int
        /// From the launch to the first frame with every visible row's own icon.
        let firstScreenMs: Double
        /// The most threads waiting in the network at once.
        var blockedThreads = 3

        var testDescription: String { "step \(step)" }
    }

    /// Measured with `swift run lessons scoreboard --json` (standard, seed 1).
    /// Rows 0–27 are shown once on the way down, 0–19 again on the way back:
    /// 28 icons, and 20 downloads more for a step that keeps nothing. The first
    /// screen's eight icons come in one round (steps 2–4, a queue with no limit:
    /// a phone's threads, one each) or three rounds of three (steps 5–7), each
    /// download holding a thread; step 10 fetches six at a time, two rounds, on no thread, and
    /// downloads no row the user only scrolled past (18 icons).
    static let expected: [Expected] = [
        Expected(
            step: 2, requests: 48, bytes: 37488, keptAfterWarning: 0, wrongImageFrames: 0, firstScreenMs: 500,
            blockedThreads: 8),
        Expected(
            step: 3, requests: 28, bytes: 21868, keptAfterWarning: 14592, wrongImageFrames: 0, firstScreenMs: 500,
            blockedThreads: 8),
        Expected(
            step: 4, requests: 28, bytes: 21868, keptAfterWarning: 0, wrongImageFrames: 0, firstScreenMs: 500,
            blockedThreads: 8),
        Expected(step: 5, requests: 28, bytes: 21868, keptAfterWarning: 0, wrongImageFrames: 0, firstScreenMs: 1500),
        Expected(step: 6, requests: 28, bytes: 21868, keptAfterWarning: 0, wrongImageFrames: 0, firstScreenMs: 1500),
        Expected(step: 7, requests: 28, bytes: 21868, keptAfterWarning: 0, wrongImageFrames: 0, firstScreenMs: 1500),
        Expected(
            step: 10, requests: 18, uniqueURLs: 18, bytes: 13277, keptAfterWarning: 0, wrongImageFrames: 0,
            firstScreenMs: 1000, blockedThreads: 0),
    ]

    @Test(arguments: expected)
    func standardScenarioCounts(_ expected: Expected) async throws {
        let report = try #require(await ScoreboardRuns.report(step: expected.step, scenario: "standard"))
        #expect(report.requests == expected.requests)
        #expect(report.uniqueURLs == expected.uniqueURLs)
        #expect(report.peakBlockedThreads == expected.blockedThreads)
        #expect(report.duplicateRequests == 0)
        #expect(report.bytes == expected.bytes)
        #expect(report.liveImageBytes == expected.keptAfterWarning)
        #expect(report.wrongImageFrames == expected.wrongImageFrames)
        #expect(report.controllerFreed)
        #expect(report.requestsOnMainQueue == 0)
        #expect(report.ownIconsAtEnd == report.visibleRowsAtEnd)
        #expect(report.maxMainStallMs == 0)
        #expect(report.timeToAllVisibleMs == expected.firstScreenMs)
        #expect(report.clockNotes.isEmpty)
    }

    /// Step 1 fetches on the main queue while the table scrolls: every frame
    /// that brings a row into view waits for its download.
    @Test func synchronousStepBlocksAndSkipsRows() async throws {
        let report = try #require(await ScoreboardRuns.report(step: 1, scenario: "standard"))
        #expect(report.requestsOnMainQueue == 40 && report.requests == 40)
        #expect(report.uniqueURLs == 28)
        // The first screen waits for eight fetches in a row: 8 × 500 ms.
        #expect(report.maxMainStallMs == 4000)
        #expect(report.peakBlockedThreads == 1, "the main thread")
        #expect(report.droppedFrames == 1200)
        #expect(report.liveImageBytes == 0)
        #expect(report.controllerFreed)
    }

    /// The time to fill the first screen, against its physical limit: the
    /// first screen's downloads packed onto the threads the step's queue may
    /// use (a phone's 64 for a queue with no limit, or none at all), with no
    /// overhead. Every step that downloads in the background reaches it
    /// exactly; step 1, one fetch after another on the main queue, takes eight
    /// times as long: one latency per row.
    @Test func idealScheduleBoundsTheFirstScreen() async throws {
        for step in ScoreboardRuns.steps {
            let report = try #require(await ScoreboardRuns.report(step: step, scenario: "standard"))
            let time = try #require(report.timeToAllVisibleMs)
            let ideal = try #require(report.idealTimeToAllVisibleMs)
            #expect(time == (step == 1 ? 8 * ideal : ideal), "step \(step): \(time) ms against the limit \(ideal) ms")
        }
    }

    /// Step 10 against the physical limit (docs/performance.md):
    /// the first screen in ceil(8 rows / 6 at once) × latency, every icon
    /// fetched once and every byte once, fault-free.
    @Test func step10ReachesThePhysicalLimit() async throws {
        let last = try #require(LessonCatalog.entry(10))
        let controller = try #require(ScoreboardRuns.controllers[last.number], "step \(last.number) is not imported")
        let firstScreen = Scenario(
            name: "first-screen", summary: "the first screen, until every icon shows", steps: [.settle(timeout: 10)])
        let result = await SharedRuns.shared.result(controller, firstScreen)
        let report = result.report
        #expect(report.downloadQueueLimit == 6)
        #expect(report.idealTimeToAllVisibleMs == 1000, "ceil(8 / 6) rounds of 500 ms")
        #expect(report.timeToAllVisibleMs == 1000)
        #expect(report.requests == 8 && report.uniqueURLs == 8)
        let uniqueBytes = Set(result.timeline.requests.map(\.url)).reduce(0) { $0 + IconArt.ppm(for: $1).count }
        #expect(report.bytes == uniqueBytes && report.uniqueBytes == uniqueBytes)
        #expect(report.failedRequests == 0)
    }

    /// The table, Markdown and JSON forms carry every step and every column.
    @Test func tableShowsEveryStepAndColumn() async throws {
        var rows: [Scoreboard.Row] = []
        for step in ScoreboardRuns.steps {
            let entry = try #require(LessonCatalog.entry(step))
            let report = try #require(await ScoreboardRuns.report(step: step, scenario: "standard"))
            rows.append(Scoreboard.Row(lesson: entry.id, title: entry.title, outcome: .measured(report)))
        }
        rows.append(
            Scoreboard.Row(lesson: "99", title: "broken", outcome: .failed("crashed (signal 11)"), crashedRuns: 2))

        let text = Scoreboard.text(rows, heading: "heading")
        for column in Scoreboard.columns { #expect(text.contains(column.header)) }
        #expect(
            text.split(separator: "\n").contains { $0.hasPrefix("99 broken") && $0.hasSuffix("crashed (signal 11)") })
        #expect(text.contains("step 99 crashed in 2 runs"))

        let markdown = Scoreboard.markdown(rows).split(separator: "\n")
        #expect(markdown.filter { $0.hasPrefix("| 0") || $0.hasPrefix("| 1") }.count == ScoreboardRuns.steps.count)
        #expect(
            markdown.allSatisfy {
                $0.isEmpty || !$0.hasPrefix("|") || $0.filter { $0 == "|" }.count == Scoreboard.columns.count + 2
            })

        let json = Scoreboard.json(rows, scenario: "standard", seed: 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let steps = try #require(object["steps"] as? [[String: Any]])
        #expect(steps.count == rows.count)
        #expect(steps.last?["error"] as? String == "crashed (signal 11)")
        let firstReport = try #require(steps.first?["report"] as? [String: Any])
        for column in Scoreboard.columns {
            for figure in column.figures where !figure.canBeNull {
                #expect(firstReport[figure.key] != nil, "column \(column.header) reads \(figure.key), which the JSON lacks")
            }
        }
    }
}

/// The `lessons` commands refuse a bad command line with one line and the usage, exit status 2.
@Suite struct LessonsCommandLineTests {
    static let badCommandLines: [[String]] = [
        ["scoreboard", "--bogus"], ["scoreboard", "--markdown", "--json"], ["scoreboard", "--speed", "10"],
        ["scoreboard", "--scenario", "nowhere"], ["timelines", "--seed", "-1"], ["framecost", "--rows", "ten"],
        ["framecost", "--step", "8"], ["bench", "--units", "0"],
    ]

    @Test(arguments: badCommandLines)
    func badFlagsGetOneLineAndTheUsage(_ arguments: [String]) async throws {
        let run = try await Rig.runProduct("lessons", arguments)
        #expect(run.status == 2)
        let lines = run.standardError.split(separator: "\n")
        #expect(lines.first?.hasPrefix("lessons \(arguments[0]): ") == true, "first line: \(lines.first ?? "")")
        #expect(lines.dropFirst().first?.contains("usage:") == true)
    }
}

/// The timeline picture draws every lane it has something for, and only those.
@Suite struct TimelinePictureTests {
    static func request(
        _ id: Int, _ url: String, _ start: Double, _ end: Double?, _ outcome: Request.Outcome, duplicate: Bool = false
    ) -> Request {
        Request(
            id: id, url: url, startMs: start, endMs: end, thread: Request.worker, outcome: outcome, error: nil, bytes: 0,
            isDuplicate: duplicate)
    }

    @Test func imageListRunShowsScreenMainQueueWorkersAndLegend() throws {
        var timeline = Timeline()
        timeline.title = "Lesson 02 · test"
        timeline.durationMs = 1000
        timeline.screen = [
            .init(startMs: 0, endMs: 300, placeholder: 8), .init(startMs: 300, endMs: 1000, own: 6, wrong: 2),
        ]
        timeline.stalls = [(startMs: 400, endMs: 600)]
        timeline.allVisibleMs = 900
        timeline.events = [.init(ms: 0, label: "launch"), .init(ms: 500, label: "drag to row 20")]
        timeline.requests = [
            Self.request(0, "a", 0, 500, .ok),
            Self.request(1, "a", 100, 600, .ok, duplicate: true),
            Self.request(2, "b", 600, nil, .inFlight),
        ]
        let svg = TimelineSVG.render(timeline)
        for text in ["screen", "main queue", "worker 1", "worker 2", "launch", "drag to row 20", "duplicate in flight"]
        {
            #expect(svg.contains(">\(text)<"), "the picture lacks \(text)")
        }
        #expect(svg.contains("duplicate: the same URL was already in flight"), "request 1 overlaps request 0 for a")
        #expect(svg.contains("main queue blocked 183 ms"), "the stall, minus the frame it should have been")
        #expect(svg.components(separatedBy: "<svg").count == 2 && svg.hasSuffix("</svg>\n"))
        #expect(!svg.contains(">operations<"))
    }

    /// Downloads that hold no thread (`SlowNetwork.fetch`) are drawn on fetch lanes, not worker lanes.
    @Test func fetchesThatHoldNoThreadAreNotDrawnAsWorkers() {
        var timeline = Timeline()
        timeline.durationMs = 1000
        timeline.requests = [0, 1].map {
            Request(
                id: $0, url: "u\($0)", startMs: 0, endMs: 500, thread: Request.noThread, outcome: .ok, error: nil,
                bytes: 0, isDuplicate: false)
        }
        let svg = TimelineSVG.render(timeline)
        #expect(svg.contains(">fetch 1<") && svg.contains(">fetch 2<"))
        #expect(!svg.contains(">worker 1<"))
    }

    @Test func operationRunShowsItsSpansAndNoScreen() {
        var timeline = Timeline()
        timeline.durationMs = 100
        timeline.spans = [
            .init(name: "download", lane: "worker 1", startMs: 0, endMs: 60),
            .init(name: "install", lane: "main queue", startMs: 70, endMs: 90),
        ]
        let svg = TimelineSVG.render(timeline)
        #expect(svg.contains(">download<") && svg.contains(">install<") && svg.contains(">operations<"))
        #expect(!svg.contains(">screen<"))
        #expect(!svg.contains(">downloads<"), "no network, no download legend")
    }
}
