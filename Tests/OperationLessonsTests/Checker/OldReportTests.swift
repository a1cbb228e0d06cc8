import Foundation
import LessonKit
import Testing

/// A report written by another build of the lessons (a workbench built before a figure was added, a JSON file
/// kept from an earlier run) is read when what it lacks may be absent, and refused in one sentence naming where
/// it came from when it lacks a figure the checks read: never a crash, never a figure it did not have.
@Suite struct OldReportTests {
    /// A report of this build as JSON, with `keys` taken out.
    static func report(without keys: [String]) throws -> Data {
        var report = Report()
        report.requests = 16
        report.uniqueURLs = 8
        report.wrongImageFrames = 3
        var object = try #require(try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
        for key in keys { try #require(object.removeValue(forKey: key) != nil, "no key \(key) in a report") }
        return try JSONSerialization.data(withJSONObject: object)
    }

    /// Written before `othersIcons` (which rows showed whose icon): refused, naming the file and the figure.
    @Test func aReportWithoutTheNewerFiguresIsRefusedNamingTheFile() throws {
        let old = try Self.report(without: ["othersIcons"])
        #expect(throws: UnreadableReport.self) { try Report.read(old, from: "old-run.json") }
        do {
            _ = try Report.read(old, from: "old-run.json")
        } catch {
            #expect(
                "\(error)"
                    == "old-run.json cannot be read as a report: it was written by an older build of the lessons and "
                    + "lacks `othersIcons`; play it again with this build.")
        }
        // Through the reader the step tools use, too.
        #expect(throws: UnreadableReport.self) { try Report.decoded(from: old, source: "old-run.json") }
    }

    /// A figure that may be absent (written `null` when not measured) reads as not measured.
    @Test func aReportWithoutAFigureThatMayBeAbsentIsRead() throws {
        let old = try Self.report(without: ["diskReads", "liveImageBytes"])
        let report = try Report.read(old, from: "old-run.json")
        #expect(report.diskReads == nil)
        #expect(report.liveImageBytes == nil)
        #expect(report.requests == 16 && report.uniqueURLs == 8 && report.wrongImageFrames == 3)
    }

    /// Not a report at all: one sentence, naming the file.
    @Test func somethingElseIsRefusedInASentence() throws {
        for (data, reason) in [
            (Data("[1, 2]".utf8), "it is not a JSON object"),
            (Data("not json".utf8), "it is not a JSON object"),
        ] {
            do {
                _ = try Report.read(data, from: "x.json")
                Issue.record("read \(String(decoding: data, as: UTF8.self)) as a report")
            } catch {
                #expect("\(error)" == "x.json cannot be read as a report: \(reason).")
            }
        }
        var object = try #require(
            try JSONSerialization.jsonObject(with: Self.report(without: [])) as? [String: Any])
        object["requests"] = "many"
        do {
            _ = try Report.read(try JSONSerialization.data(withJSONObject: object), from: "x.json")
            Issue.record("read a report whose requests are a word")
        } catch {
            #expect("\(error)" == "x.json cannot be read as a report: `requests` is not what a report holds there.")
        }
    }
}
