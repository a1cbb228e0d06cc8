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
}
