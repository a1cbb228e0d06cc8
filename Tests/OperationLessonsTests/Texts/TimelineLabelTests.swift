import Foundation
import LessonKit
import Testing

/// What the timeline pictures say: their axis, and step 8's operations.
@Suite struct TimelineLabelTests {
    /// The labels under the ticks of `svg`'s time axis, left to right.
    static func axisLabels(_ svg: String) -> [String] {
        svg.split(separator: "\n").filter { $0.contains("text-anchor=\"middle\" font-size=\"10\">") }
            .compactMap { line in line.split(separator: ">").dropFirst().first?.split(separator: "<").first }
            .map(String.init)
    }

    /// A 25 s story gets a tick every 2.5 s: each is labelled with its value.
    @Test func axisLabelsAreTheirTicksTrueValues() {
        var timeline = Timeline()
        timeline.durationMs = 25_000
        #expect(
            TimelineLabelTests.axisLabels(TimelineSVG.render(timeline))
                == ["0.0", "2.5", "5.0", "7.5", "10.0", "12.5", "15.0", "17.5", "20.0", "22.5", "25.0"])
        timeline.durationMs = 1_000
        #expect(TimelineLabelTests.axisLabels(TimelineSVG.render(timeline)).prefix(3) == ["0.0", "0.1", "0.2"])
        timeline.durationMs = 12_000
        #expect(TimelineLabelTests.axisLabels(TimelineSVG.render(timeline)).prefix(3) == ["0", "1", "2"])
    }

    /// Each kind of operation has a colour of its own, named in the legend;
    /// a bar too narrow for its name shows its last word.
    @Test func operationsAreColouredByKindAndNamed() {
        var timeline = Timeline()
        timeline.durationMs = 10_000
        timeline.spans = [
            .init(name: "download", lane: "worker 1", startMs: 0, endMs: 2000),
            .init(name: "unzip", lane: "worker 2", startMs: 2000, endMs: 4000),
            .init(name: "install", lane: "main queue", startMs: 4000, endMs: 5000),
            .init(name: "block 1", kind: "execution block", lane: "worker 1", startMs: 6000, endMs: 6200),
            .init(name: "block 2", kind: "execution block", lane: "worker 1", startMs: 6200, endMs: 6400),
        ]
        let svg = TimelineSVG.render(timeline)
        func fill(of name: String) -> String? {
            let line = svg.split(separator: "\n").first { $0.contains("<title>\(name) (") }
            return line?.split(separator: "fill=\"").dropFirst().first?.split(separator: "\"").first.map(String.init)
        }
        let fills = ["download", "unzip", "install", "block 1", "block 2"].map(fill)
        #expect(fills.allSatisfy { $0 != nil })
        #expect(Set(fills.prefix(4)).count == 4, "download, unzip, install and a block each in a colour of its own")
        #expect(fills[3] == fills[4], "two execution blocks, one colour")
        for kind in ["download", "unzip", "install", "execution block"] {
            #expect(svg.contains(">\(kind)</text>"), "the legend names \(kind)")
        }
        #expect(svg.contains(">2</text>"), "block 2's bar (18 px) is labelled with its number")
    }

    /// The real step 8: its update's operations are told apart in its picture.
    @Test func stepEightsPictureNamesItsOperationsByKind() async throws {
        let folder = try ScratchFolder.make("timeline-8")
        defer { ScratchFolder.remove(folder) }
        let path = folder.appendingPathComponent("08.svg").path
        let run = try await Rig.runProduct(
            "Lesson08Dependencies", ["--part", "chain,blocks", "--speed", "10", "--json", "--timeline", path])
        #expect(run.status == 0, "\(run.standardError)")
        let svg = try String(contentsOfFile: path, encoding: .utf8)
        for kind in ["download", "unzip", "install", "execution block"] {
            #expect(svg.contains("\">\(kind)</text>"), "the legend names \(kind)")
        }
        #expect(!svg.contains("one operation"))
    }
}
