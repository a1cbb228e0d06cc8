import Foundation
import LessonChecks
import LessonKit
import Testing

/// `lessons watch`: a check now and after every save, and what changed since
/// the one before. The loop is played with checks and saves handed in, so no
/// test waits on a clock; the file watching is played on files whose dates are set.
@Suite struct WatchTests {
    static func result(_ bug: String, _ passed: Bool, safeguard: Bool = false) -> CheckResult {
        CheckResult(bug: bug, passed: passed, measured: "", expected: "", hint: "", isSafeguard: safeguard)
    }

    @Test func eachCheckSaysWhichBugsWentFromCrossToTickAndBack() throws {
        let verdicts: [[CheckResult]?] = [
            [
                Self.result("freeze", false), Self.result("blank", false),
                Self.result("off main", true, safeguard: true),
            ],
            [Self.result("freeze", true), Self.result("blank", false), Self.result("off main", true, safeguard: true)],
            nil,
            [
                Self.result("freeze", false), Self.result("blank", true),
                Self.result("off main", false, safeguard: true),
            ],
            [
                Self.result("freeze", false), Self.result("blank", true),
                Self.result("off main", false, safeguard: true),
            ],
        ]
        var checks = 0
        var waits = 0
        var said: [String] = []
        let watch = WorkbenchWatch(
            waitForChange: {
                waits += 1
                return waits < verdicts.count
            },
            check: {
                defer { checks += 1 }
                return verdicts[checks]
            },
            say: { said.append($0) })
        let last = try watch.run()
        #expect(checks == verdicts.count)
        #expect(last.map { $0.map(\.passed) } == [false, true, false])
        let summaries = said.filter { !$0.hasPrefix("Watching") }
        try #require(summaries.count == verdicts.count)
        #expect(summaries[0] == "First check: 0 of 2 bugs fixed.")
        #expect(summaries[1] == "Since the last check:\n  ✗ → ✓  freeze\nNow: 1 of 2 bugs fixed.")
        #expect(summaries[2].hasPrefix("No verdict this time"))
        // Compared with the last check that had a verdict.
        #expect(
            summaries[3]
                == "Since the last check:\n  ✗ → ✓  blank\n  ✓ → ✗  freeze; off main\nNow: 1 of 2 bugs fixed, an earlier fix broken."
        )
        #expect(summaries[4] == "Since the last check: no bug changed. Now: 1 of 2 bugs fixed, an earlier fix broken.")
    }

    @Test func maxChecksEndsTheWatch() throws {
        var waits = 0
        var checks = 0
        let watch = WorkbenchWatch(
            waitForChange: {
                waits += 1
                return true
            },
            check: {
                checks += 1
                return [Self.result("freeze", true)]
            },
            say: { _ in }, maxChecks: 3)
        try watch.run()
        #expect(checks == 3 && waits == 2)
    }

    @Test func aSavedAddedOrRemovedFileIsAChange() throws {
        let folder = try ScratchFolder.make("watch")
        defer { ScratchFolder.remove(folder) }
        let controller = folder.appendingPathComponent("AppsViewController.swift")
        try "// start\n".write(to: controller, atomically: true, encoding: .utf8)
        let saved = Date(timeIntervalSince1970: 1_000_000)
        try FileManager.default.setAttributes([.modificationDate: saved], ofItemAtPath: controller.path)
        let before = FolderState(folder)
        #expect(FolderState(folder) == before)

        // Saved again with the same bytes, a second later: still a save.
        try "// start\n".write(to: controller, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: saved + 1], ofItemAtPath: controller.path)
        #expect(FolderState(folder).changes(since: before) == ["AppsViewController.swift"])

        let helpers = folder.appendingPathComponent("Helpers")
        try FileManager.default.createDirectory(at: helpers, withIntermediateDirectories: true)
        try "// mine\n".write(to: helpers.appendingPathComponent("Cache.swift"), atomically: true, encoding: .utf8)
        let added = FolderState(folder)
        #expect(added.changes(since: before) == ["AppsViewController.swift", "Helpers/Cache.swift"])
        try FileManager.default.removeItem(at: helpers)
        #expect(FolderState(folder).changes(since: added) == ["Helpers/Cache.swift"])
    }
}
