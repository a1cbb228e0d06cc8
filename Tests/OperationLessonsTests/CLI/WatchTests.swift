import Foundation
import LessonChecks
import LessonKit
import TableKit
import TerminalKit
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
            nextEvent: {
                waits += 1
                return waits < verdicts.count ? .saved(["AppsViewController.swift"]) : .stop
            },
            check: {
                defer { checks += 1 }
                return verdicts[checks]
            },
            say: { said.append($0) })
        let last = try watch.run()
        #expect(checks == verdicts.count)
        #expect(last.map { $0.map(\.passed) } == [false, true, false])
        #expect(said.filter { $0 == "── check 2 · saved: AppsViewController.swift ──" }.count == 1)
        let summaries = said.filter { !$0.hasPrefix("Watching") && !$0.hasPrefix("──") }
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
            nextEvent: {
                waits += 1
                return .saved(["main.swift"])
            },
            check: {
                checks += 1
                return [Self.result("freeze", true)]
            },
            say: { _ in }, maxChecks: 3)
        try watch.run()
        #expect(checks == 3 && waits == 2)
    }

    /// The keys, played with a script of events: what each key did, in order.
    static func play(
        _ events: [WorkbenchWatch.Event], verdicts: [[CheckResult]?], nextExists: Bool = true
    ) throws -> (done: [String], said: [String]) {
        var events = events[...]
        var verdicts = verdicts[...]
        var done: [String] = []
        var said: [String] = []
        let watch = WorkbenchWatch(
            nextEvent: { events.popFirst() ?? .stop },
            check: {
                done.append("check")
                return verdicts.popFirst() ?? nil
            },
            say: { said.append($0) },
            keys: WorkbenchWatch.Keys(
                hint: { done.append("hint") }, list: { done.append("list") }, reset: { done.append("reset") },
                next: {
                    done.append("next")
                    return nextExists
                }))
        try watch.run()
        return (done, said)
    }

    @Test func eachKeyDoesItsOneThingAndTheKeysAreTheLastLine() throws {
        let failing = [Self.result("freeze", false)]
        let (done, said) = try Self.play(
            [
                .key("h"), .key("h"), .key("l"), .key("c"), .key("x"), .key("r"), .key("n"), .key("r"), .key("r"),
                .key("e"), .key("s"), .key("e"), .key("t"), .key("\n"), .key("q"), .key("c"),
            ],
            verdicts: [failing, failing, failing])
        // x is no key: nothing happens; r asks and only the word reset then Enter is yes; q ends before the last c.
        #expect(done == ["check", "hint", "hint", "list", "check", "reset", "check"])
        #expect(said.contains(WorkbenchWatch.resetQuestion))
        #expect(said.filter { $0 == "Nothing changed." }.count == 1)
        #expect(said.contains("── check 2 · c ──") && said.contains("── check 3 · starting code back ──"))
        #expect(said.last == WorkbenchWatch.keyLine(solved: false))
        #expect(!said.contains { $0.hasPrefix("✓ Solved") })
    }

    /// Words typed into the watch by mistake (into the wrong window, say) hold
    /// `r`s followed by other letters: none of them resets. `every` once did
    /// (`r`, then `y`).
    @Test func typingOrdinaryWordsNeverResets() throws {
        let failing = [Self.result("freeze", false)]
        for text in ["every", "every tree; terry: reset ready?\n", "r\n", "rrrrr", "rese\n", "r reset\n"] {
            let (done, said) = try Self.play(text.map { .key($0) }, verdicts: [failing])
            #expect(done == ["check"], "\(text.debugDescription) did \(done)")
            #expect(said.contains("Nothing changed."), "\(text.debugDescription)")
        }
        // A save while the question waits is no answer: it is checked, and nothing is reset.
        let (done, said) = try Self.play([.key("r"), .saved(["main.swift"]), .key("y")], verdicts: [failing, failing])
        #expect(done == ["check", "check"])
        #expect(said.contains("── check 2 · saved: main.swift ──"))
    }

    @Test func onceSolvedItSaysSoAndNMovesOn() throws {
        let failing = [Self.result("freeze", false)]
        let passing = [Self.result("freeze", true)]
        // n before the exercise is solved does nothing but say why.
        let early = try Self.play([.key("n")], verdicts: [failing])
        #expect(early.done == ["check"])
        #expect(early.said.contains { $0.hasPrefix("n moves on once this exercise is solved") })

        let solved = try Self.play([.key("n"), .key("q")], verdicts: [passing, failing])
        #expect(solved.done == ["check", "next", "check"])
        let firstPrompt = try #require(solved.said.firstIndex(of: WorkbenchWatch.keyLine(solved: true)))
        #expect(solved.said[firstPrompt - 1] == "✓ Solved. n starts the next exercise.")
        #expect(solved.said.contains("── check 2 · the next exercise ──"))
        // The next exercise is not solved: the keys no longer offer n.
        #expect(solved.said.last == WorkbenchWatch.keyLine(solved: false))

        // No exercise left: n starts nothing and checks nothing.
        let last = try Self.play([.key("n")], verdicts: [passing], nextExists: false)
        #expect(last.done == ["check", "next"])
    }

    @Test func withoutAKeyboardOnlySavesCount() throws {
        var checks = 0
        var events: [WorkbenchWatch.Event] = [.key("c"), .key("q")]
        var said: [String] = []
        let watch = WorkbenchWatch(
            nextEvent: { events.isEmpty ? .stop : events.removeFirst() },
            check: {
                checks += 1
                return [Self.result("freeze", false)]
            },
            say: { said.append($0) })
        try watch.run()
        #expect(checks == 1 && events.isEmpty)
        #expect(!said.contains(WorkbenchWatch.keyLine(solved: false)))
        #expect(said.last?.hasPrefix("Watching Workbench/Sources/Workbench/") == true)
    }

    /// The real command on a terminal, on a copy of the exercise folders
    /// (whose workbench cannot build there: a check with no verdict, quickly).
    @Test(.onATerminal) func theKeysWorkOnATerminalAndLeaveItAsItWas() async throws {
        let root = try ExerciseCommandTests.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let keyLine = WorkbenchWatch.keyLine(solved: false)
        let run = try await PseudoTerminal.run(
            "lessons", arguments: ["watch", "--root", root.path],
            keys: [
                .type("l", after: keyLine), .type("h", after: "✓ solved · → in the workbench now"),
                // Typed as a word: its r asks, and its y is no answer.
                .type("every", after: "hint 1 of 3"), .type("q", after: "Nothing changed."),
            ], size: (24, 80))
        #expect(run.status == 1, "no verdict: not solved")
        #expect(run.restored, "the terminal echoes and edits lines again")
        let lines = run.output.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n")
        #expect(lines.filter { $0 == keyLine }.count == 4, "after the check, the list, the hint, and no reset")
        #expect(lines.contains { $0.hasPrefix("No verdict this time") || $0.hasPrefix("First check") })
        #expect(!run.output.contains("Backed up to"), "every is no reset: nothing was reset")
        for line in lines { #expect(TerminalText.width(of: line) <= 80, "too wide: \(line)") }
    }

    /// What a build reads is watched; what the program writes beside it is not:
    /// a `debug.log` the learner's code appends to on every run once set off a
    /// check after every check, for ever.
    @Test func onlyTheSourcesAndTheManifestAreWatched() throws {
        let package = try ScratchFolder.make("watch-package")
        defer { ScratchFolder.remove(package) }
        let code = package.appendingPathComponent("Sources/Workbench")
        try FileManager.default.createDirectory(at: code, withIntermediateDirectories: true)
        let manifest = package.appendingPathComponent("Package.swift")
        try "// package\n".write(to: manifest, atomically: true, encoding: .utf8)
        try "// code\n".write(to: code.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
        let before = FolderState(code, manifest: manifest)

        for log in [code.appendingPathComponent("debug.log"), package.appendingPathComponent("debug.log")] {
            try "run 1\n".write(to: log, atomically: true, encoding: .utf8)
        }
        try "notes\n".write(to: code.appendingPathComponent("Notes.txt"), atomically: true, encoding: .utf8)
        #expect(FolderState(code, manifest: manifest) == before, "what the program writes is no save")

        try "// package, edited\n".write(to: manifest, atomically: true, encoding: .utf8)
        #expect(FolderState(code, manifest: manifest).changes(since: before) == ["Package.swift"])
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
