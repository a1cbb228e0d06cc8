import Foundation
import LessonKit
import SlowNetwork
import TableKit
import TerminalKit
import Testing

@testable import Lesson06SandboxCache

/// `lessons compare N`: step N beside the step before it, on one scenario.
@Suite struct CompareTests {
    /// The pairs, and the scenario each plays.
    @Test func eachComparisonIsAStepAndTheOneBeforeIt() throws {
        let pairs = LessonComparison.steps.compactMap(LessonComparison.of).map {
            "\($0.before.number)→\($0.after.number) \($0.scenario)" + ($0.thenScenario.map { " then \($0)" } ?? "")
        }
        #expect(
            pairs == [
                "1→2 standard", "2→3 fast-scroll-slow-rows then standard", "3→4 memory-warning-then-scroll",
                "4→5 offline",
                "5→6 offline-relaunch", "6→7 memory-warning-mid-download", "7→10 shared-icon-reuse",
                "10→11 shared-icon-reuse",
            ])
        #expect(LessonComparison.of(1) == nil && LessonComparison.of(8) == nil && LessonComparison.of(9) == nil)
    }

    /// A learner meets steps 2–7 and 10 through their comparison: it is the
    /// first command of the lesson text and the catalog's "run:" line.
    @Test func aComparisonIsHowEachStepIsMet() async throws {
        let list = try await Rig.runProduct("lessons", ["list"])
        for number in LessonComparison.steps {
            let entry = try #require(LessonCatalog.entry(number))
            let text = try String(contentsOf: Rig.packageRoot.appendingPathComponent(entry.text), encoding: .utf8)
            let firstCommand = text.components(separatedBy: "```sh\n").dropFirst().first?.split(separator: "\n").first
            #expect(
                firstCommand?.hasPrefix("swift run lessons compare \(number)") == true,
                "\(entry.text) starts with \(firstCommand ?? "no command")")
            #expect(list.standardOutput.contains("    run:   swift run lessons compare \(number)   (beside step "))
        }
    }

    @Test func aStepWithoutAComparisonIsRefusedWithTheListOfThoseWithOne() async throws {
        let run = try await Rig.runProduct("lessons", ["compare", "8"])
        #expect(run.status == 2)
        let expected =
            "lessons compare: step 8 has no comparison: compare takes 2, 3, 4, 5, 6, 7, 10 and 11 (each against the step "
            + "before it; 10 against 7, the image step before it)"
        #expect(run.standardError.split(separator: "\n").first.map(String.init) == expected)
        let cleared = try await Rig.runProduct("lessons", ["compare", "6", "--clear-cache"])
        #expect(cleared.status == 2)
        #expect(cleared.standardError.hasPrefix("lessons compare: --clear-cache does not apply"))
    }

    /// Off a terminal: each side's screen after each script step, then the table of what differs.
    @Test(.racyStepAsChild) func aPlainComparisonEndsWithTheFiguresThatDiffer() async throws {
        let run = try await Rig.runProduct("lessons", ["compare", "3", "--plain"])
        #expect(run.status == 0, "\(run.standardError)")
        let text = run.standardOutput
        #expect(text.hasPrefix("compare 3 · step 2 → step 3 · fast-scroll-slow-rows:"))
        // Each waits for its slow icons; step 2 drew them in other rows on the way.
        #expect(text.contains("step 2 at 13.9 s — after settle(timeout: 60.0)"))
        #expect(text.contains("step 3 at 9.4 s — after settle(timeout: 60.0)"))
        let blocks = text.components(separatedBy: "\n\n")
        #expect(
            blocks.first { $0.hasPrefix("On fast-scroll-slow-rows:") } == """
                On fast-scroll-slow-rows:
                                                             step 2   step 3
                requests                                         70       66
                bytes downloaded                              54670    29678
                requests started while the user scrolled         62       58
                frames with a placeholder                       504      560
                frames with another row's icon                  469        0
                rows showing their own icon at the end       6 of 8   8 of 8
                controller freed when its screen went away      yes       no
                length of the story                          13.9 s  9367 ms
                """)
        // Then step 3's other fix, on standard: the icons it keeps are not downloaded again.
        #expect(
            text.contains("Its other fix shows on standard: both play it now.\ncompare 3 · step 2 → step 3 · standard"))
        let standard = try #require(blocks.first { $0.hasPrefix("On standard:") }).split(separator: "\n")
        #expect(standard.contains { $0.hasPrefix("requests  ") && $0.hasSuffix("48       28") }, "\(standard)")
        #expect(!standard.contains { $0.hasPrefix("frames with another row's icon") }, "none on standard")
        #expect(text.contains("✗ row 23's icon!"))
        for line in text.split(separator: "\n") {
            #expect(TerminalText.width(of: line) <= 80, "wider than 80 columns: \(line)")
        }
    }

    /// Step 10's headline fix, measured by the harness at the network: step
    /// 7's blocking fetch holds a thread per download, step 10's none.
    @Test func step10sComparisonAndRunSayTheThreadsHeldWaiting() async throws {
        let compare = try await Rig.runProduct("lessons", ["compare", "10", "--plain"])
        #expect(compare.status == 0, "\(compare.standardError)")
        let row = compare.standardOutput.split(separator: "\n").first {
            $0.hasPrefix("most threads held waiting for the network")
        }
        #expect(row?.split(separator: " ").suffix(2) == ["3", "0"], "\(row ?? "no row")")
        let run = try await Rig.runProduct("Lesson10WebImage", ["--plain"])
        #expect(run.standardOutput.contains("\n  Waiting for the network held no thread.\n"))
        let before = try await Rig.runProduct(
            "Lesson07CustomOperation", ["--plain", "--scenario", "shared-icon-reuse", "--clear-cache"])
        #expect(before.standardOutput.contains("\n  Waiting for the network held up to 3 threads at once.\n"))
    }

    /// `--json` prints both reports; `lessons run N --compare` is the same command.
    @Test(.racyStepAsChild) func bothReportsAsJSONAndRunCompareIsTheSame() async throws {
        let compare = try await Rig.runProduct("lessons", ["compare", "5", "--json"])
        let run = try await Rig.runProduct("lessons", ["run", "5", "--compare", "--json"])
        #expect(compare.status == 0 && run.status == 0, "\(compare.standardError) \(run.standardError)")
        for output in [compare.standardOutput, run.standardOutput] {
            let both = try #require(
                try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: [String: Any]])
            #expect(both["before"]?["lesson"] as? String == "04")
            #expect(both["after"]?["lesson"] as? String == "05")
            #expect(both["before"]?["scenario"] as? String == "offline")
            #expect(both["before"]?["requests"] as? Int == 2074)
            #expect(both["after"]?["requests"] as? Int == 18)
            #expect(both["before"]?["controllerFreed"] as? Bool == false)
            #expect(both["after"]?["controllerFreed"] as? Bool == true)
        }
    }

    /// A side that fails is said, with what its step said, and there is no table.
    @Test func aSideThatFailsIsSaid() async throws {
        let folder = try ScratchFolder.make("compare-catalog")
        defer { ScratchFolder.remove(folder) }
        let catalog = folder.appendingPathComponent("empty.plist")
        try "".write(to: catalog, atomically: true, encoding: .utf8)
        let run = try await Rig.runProduct("lessons", ["compare", "3", "--plain", "--catalog", catalog.path])
        #expect(run.status == 1)
        #expect(
            run.standardError.contains(
                "lessons compare: step 2 exited with status 1: Lesson02AsyncPlaceholder: catalog \(catalog.path) is empty"
            ))
        #expect(!run.standardOutput.contains("step 2  step 3"))
    }

    /// `--timeline` draws both runs in one picture, on one time axis.
    @Test func theTimelineOfAComparisonDrawsBothOnOneAxis() async throws {
        let folder = try ScratchFolder.make("compare-timeline")
        defer { ScratchFolder.remove(folder) }
        let path = folder.appendingPathComponent("pair.svg").path
        let run = try await Rig.runProduct("lessons", ["compare", "2", "--plain", "--timeline", path])
        #expect(run.status == 0, "\(run.standardError)")
        let svg = try String(contentsOfFile: path, encoding: .utf8)
        #expect(svg.components(separatedBy: "<svg").count == 2, "one picture")
        #expect(svg.contains(">Lesson 01 · synchronous load · standard<"))
        #expect(svg.contains(">Lesson 02 · async with a placeholder · standard<"))
        // Step 1's story (20.7 s) sets the axis for both: step 2's (4.9 s) ends early, and says so.
        let labels = TimelineLabelTests.axisLabels(svg)
        #expect(labels.count == 2 * 11 && labels.suffix(11) == labels.prefix(11), "\(labels)")
        #expect(labels.last == "20")
        #expect(svg.contains("the story ended at 4.9 s"))
    }

    /// The live comparison on a terminal fits it: 80 × 24 one above the
    /// other, 120 × 40 side by side; no line wider than the terminal.
    @Test(arguments: [(24, 80), (40, 120)])
    func theLiveComparisonFitsTheTerminal(lines: Int, columns: Int) async throws {
        let run = try await PseudoTerminal.run(
            "lessons", arguments: ["compare", "10", "--speed", "10"], size: (lines, columns))
        #expect(run.status == 0)
        // Each redraw starts at the top left and clears the rest of the screen.
        let redraws = run.output.components(separatedBy: "\u{1B}[H").dropFirst()
        #expect(redraws.count > 5)
        let last = try #require(redraws.last?.components(separatedBy: "\u{1B}[J").first)
        let screen = Self.withoutEscapes(last).components(separatedBy: "\r\n")
        #expect(screen.count <= lines, "\(screen.count) lines")
        for line in screen { #expect(TerminalText.width(of: line) <= columns, "too wide: \(line)") }
        #expect(screen[1].hasPrefix("step 7 · custom Operation — finished at 3.0 s"))
        if columns >= ComparisonScreen.sideBySideColumns {
            #expect(screen[1].contains("│ step 10 · a WebImage of our own — finished at 3.0 s"))
        } else {
            #expect(screen.contains { $0.hasPrefix("step 10 · a WebImage of our own — finished at 3.0 s") })
        }
        let after = Self.withoutEscapes(run.output.components(separatedBy: "\u{1B}[J").last ?? "")
        #expect(after.contains("rows showing their own icon at the end"))
        for line in after.components(separatedBy: "\r\n") {
            #expect(TerminalText.width(of: line) <= columns, "too wide: \(line)")
        }
    }

    /// The terminal's own sequences (colours, cursor moves) taken out: what is left is what shows.
    static func withoutEscapes(_ text: String) -> String {
        text.replacingOccurrences(of: "\u{1B}\\[[0-9;?]*[A-Za-z]", with: "", options: .regularExpression)
    }

    /// Text from a side's stream reaches the terminal as text: an app name
    /// holding escape sequences is shown escaped, in a title and the rows.
    @Test func aHostileStreamIsDrawnAsText() {
        let hostile = "Evil\u{1B}]0;pwned\u{07}\u{1B}[2J"
        let frame = ScreenFrame(
            storyMs: 100,
            snapshot: ScreenSnapshot(
                contentOffset: 0, rows: [VisibleRow(row: 0, title: hostile, detail: hostile, image: nil)]),
            marks: [0: hostile], status: hostile + "\n" + hostile, finishedStep: nil)
        for (lines, columns) in [(24, 80), (40, 120)] {
            let screen = ComparisonScreen(style: .colour, lines: lines, columns: columns)
            let text = screen.render(
                header: hostile, before: .init(title: hostile, frame: frame, state: hostile),
                after: .init(title: "step", state: "0.1 s"))
            #expect(!text.contains("\u{1B}]") && !text.contains("\u{1B}[2J") && !text.contains("\u{07}"))
            #expect(text.contains("Evil\\u{1B}]0;pwned"))
        }
    }
}

/// The screen stream a step writes with `--frames` and compare reads.
@Suite struct FrameStreamTests {
    @Test func framesAndTheEndComeThroughWhateverThePiecesAre() throws {
        let written = NSLock()
        nonisolated(unsafe) var text = ""
        let writer = FrameStream.Writer { piece in written.withLock { text += piece } }
        let icon = try #require(Image(data: IconArt.ppm(for: "https://example.com/a.png")))
        for ms in [16.7, 33.3] {
            writer.frame(
                ScreenFrame(
                    storyMs: ms,
                    snapshot: ScreenSnapshot(
                        contentOffset: 0,
                        rows: [
                            VisibleRow(row: 0, title: "QQ", detail: "1万", image: icon, progress: 0.5),
                            VisibleRow(row: 1, title: "WeChat", detail: nil, image: .placeholder),
                            VisibleRow(row: 2, title: nil, detail: nil, image: nil),
                        ]),
                    marks: [0: "✓ its icon", 1: "… placeholder"], status: "requests 1\nstall max 0 ms",
                    finishedStep: ms > 20 ? "settle" : nil))
        }
        var report = Report()
        report.requests = 7
        var timeline = Timeline()
        timeline.stalls = [(startMs: 1, endMs: 2)]
        writer.end(FrameStream.End(report: report, timeline: timeline))

        let bytes = Data(written.withLock { text }.utf8)
        #expect(bytes.split(separator: UInt8(ascii: "\n")).count == 4, "an icon once, two frames, the end")
        let reader = FrameStream.Reader()
        // Pieces of 7 bytes: lines and UTF-8 characters cut anywhere.
        for start in stride(from: 0, to: bytes.count, by: 7) {
            reader.receive(bytes.subdata(in: start..<min(start + 7, bytes.count)))
        }
        let frames = reader.takeFrames()
        #expect(frames.map(\.storyMs) == [16.7, 33.3])
        #expect(frames.map(\.finishedStep) == [nil, "settle"])
        let rows = try #require(frames.last?.snapshot.rows)
        #expect(rows.map(\.title) == ["QQ", "WeChat", nil])
        #expect(rows[0].image?.fingerprint == icon.fingerprint && rows[0].progress == 0.5)
        #expect(rows[1].image?.isPlaceholder == true && rows[2].image == nil)
        #expect(frames.last?.marks == [0: "✓ its icon", 1: "… placeholder", 2: ""])
        #expect(frames.last?.status == "requests 1\nstall max 0 ms")
        #expect(reader.end?.report.requests == 7)
        #expect(reader.end?.timeline.stalls.map(\.endMs) == [2])
        #expect(reader.takeFrames().isEmpty)
        #expect(reader.brokenBecause == nil)
    }

    @Test func aLineThatCannotBeReadBreaksTheStreamAndSaysSo() {
        let reader = FrameStream.Reader()
        reader.receive(Data("{\"frame\":{\"ms\":1,\"rows\":[],\"status\":\"\"}}\nnot json\n".utf8))
        #expect(reader.takeFrames().count == 1)
        #expect(reader.brokenBecause?.hasPrefix("a line of its screen stream could not be read: not json") == true)
    }
}

/// The table a comparison ends with.
@Suite struct ReportComparisonTests {
    /// Step 4 downloads more than step 3 on its own scenario: said, and why, when the figures show it.
    @Test func moreRequestsAreExplainedOnlyWhenTheWarningAccountsForThem() {
        var keeps = Report()
        keeps.requests = 28
        keeps.liveImageBytes = 14592
        keeps.requestsAfterMemoryWarning = 0
        var letsGo = keeps
        letsGo.requests = 48
        letsGo.liveImageBytes = 0
        letsGo.requestsAfterMemoryWarning = 20
        #expect(
            ReportComparison.moreRequests(before: keeps, after: letsGo, beforeName: "step 3", afterName: "step 4")
                == "Step 4 makes more requests (28 → 48) because it lets images go: after the memory warning it "
                + "kept 0 bytes of them (step 3: 14592), and made 20 requests after it (step 3: 0).")
        // More extra requests than the warning accounts for: the reason is elsewhere, so nothing is said.
        var more = letsGo
        more.requests = 60
        #expect(ReportComparison.moreRequests(before: keeps, after: more, beforeName: "a", afterName: "b") == nil)
        // Fewer requests, or as many images kept: nothing to explain.
        #expect(ReportComparison.moreRequests(before: letsGo, after: keeps, beforeName: "a", afterName: "b") == nil)
        var kept = letsGo
        kept.liveImageBytes = 14592
        #expect(ReportComparison.moreRequests(before: keeps, after: kept, beforeName: "a", afterName: "b") == nil)
    }

    @Test func onlyTheFiguresThatDifferInWordsWithinTheWidth() {
        var before = Report()
        var after = Report()
        before.requests = 506
        after.requests = 18
        before.uniqueURLs = 18
        after.uniqueURLs = 18
        before.staleDeliveries = 3
        after.timeToAllVisibleMs = 1500
        let rows = ReportComparison.differences(before, after)
        #expect(
            rows.map(\.label) == [
                "requests", "icons delivered after the warning by downloads started before it",
                "every visible row first shows its own icon after",
            ])
        #expect(rows.map(\.before) == ["506", "3", "never"])
        #expect(rows.map(\.after) == ["18", "0", "1500 ms"])
        let table = ReportComparison.table(
            before: before, after: after, beforeName: "step 4", afterName: "step 5", columns: 60)
        for line in table.split(separator: "\n") { #expect(line.count <= 60, "\(line)") }
        #expect(table.contains("icons delivered after the warning by"))
        #expect(ReportProseTests.camelCaseWords(table).isEmpty)
        #expect(
            ReportComparison.table(before: before, after: before, beforeName: "a", afterName: "b", columns: 80)
                == "The two runs gave the same figures.")
    }
}

/// A compare is watched by a person: each screen that tells the fix is held long enough to see.
@Suite struct ComparisonPaceTests {
    /// Step 6's scenario: the loaded screen a second before the relaunch, the
    /// relaunched one two seconds after it (the story was over in 1.6 s).
    @Test func offlineRelaunchHoldsTheScreensBeforeAndAfterTheRelaunch() async throws {
        let run = await SharedRuns.shared.result(Lesson06SandboxCache.AppsViewController.self, .offlineRelaunch)
        let relaunch = try #require(run.timeline.events.first { $0.label.hasPrefix("relaunch") })
        let loaded = try #require(run.report.timeToAllVisibleMs)
        #expect(relaunch.ms - loaded >= 1000, "the loaded screen for \(relaunch.ms - loaded) ms")
        #expect(
            run.report.durationMs - relaunch.ms >= 2000,
            "the relaunched one for \(run.report.durationMs - relaunch.ms) ms")
    }
}
