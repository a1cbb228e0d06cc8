import Foundation
import LessonKit
import Testing

/// The report a learner reads at the end of a run says each figure in a
/// sentence: no JSON key, no "shown after never". The keys stay in `--json`.
@Suite struct ReportProseTests {
    /// Words written as a JSON key is (`wrongImageFrames`, `chainInOrder`):
    /// a lower-case start, then a capital inside the word.
    static func camelCaseWords(_ text: String) -> [String] {
        text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init).filter { word in
            word.first?.isLowercase == true && word.dropFirst().contains(where: \.isUppercase)
        }
    }

    @Test func theImageListSummaryIsSentences() {
        var report = Report()
        report.lesson = "05"
        report.requests = 18
        report.uniqueURLs = 18
        report.failedRequests = 18
        report.maxInFlight = 3
        report.frames = 304
        report.placeholderFrames = 304
        report.visibleRowsAtEnd = 8
        report.requestsStartedWhileScrolling = 10
        report.controllerFreed = true
        let summary = report.summary
        #expect(summary.contains("Never did every visible row show its own icon at once."))
        #expect(summary.contains("Network: 18 requests for 18 icons, every one failed;"))
        #expect(summary.contains("10 requests started while the user was scrolling."))
        #expect(summary.contains("The main queue never stalled: none of the 304 frames was dropped."))
        #expect(summary.contains("At the end 0 of 8 rows show their own icon."))
        #expect(summary.contains("its controller was freed when its screen went away"))
        #expect(!summary.contains("never ·") && !summary.contains("after never"))
        #expect(Self.camelCaseWords(summary).isEmpty, "\(Self.camelCaseWords(summary))")
    }

    /// A run of step 8 and one of step 9 end with sentences, not their measures' keys.
    @Test(arguments: [
        ("Lesson08Dependencies", ["--speed", "20"]), ("Lesson09LotteryMachine", ["--speed", "20"]),
    ])
    func aStoryStepsSummaryNamesNoKey(target: String, flags: [String]) async throws {
        let json = try await Rig.runProduct(target, flags + ["--json"])
        let keys = try #require(
            (try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])?["measures"]
                as? [String: Any])
        #expect(keys.count >= 5)
        let plain = try await Rig.runProduct(target, flags + ["--plain"])
        #expect(plain.status == 0, "\(plain.standardError)")
        let summary = try #require(plain.standardOutput.components(separatedBy: "\nLesson 0").last)
        for key in keys.keys { #expect(!summary.contains(key), "the summary says \(key)") }
    }

    /// Every step has a hook, and a run ends with its lesson, then the hook.
    @Test func aRunEndsWithTheLessonThenWhatIsStillBroken() async throws {
        #expect(LessonCatalog.all.filter { $0.stillBroken == nil }.map(\.number) == [])
        let entry = try #require(LessonCatalog.entry(5))
        let run = try await LessonProcess.run(entry.target, ["--plain"])
        let lines = run.output.split(separator: "\n").suffix(2).map(String.init)
        #expect(lines.first == "The lesson: \(entry.lesson)")
        #expect(lines.last?.hasPrefix("Still broken → step 6: ") == true, "\(lines)")
    }
}
