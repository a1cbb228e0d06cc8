import Foundation
import LessonChecks
import LessonKit
import Testing

/// The report of a scenario child travels on a channel of its own, and every
/// scenario child runs with the same flags, whatever the code under test does.
@Suite struct ReportChannelTests {
    /// A program that prints, as a learner's `cellForRowAt` does while they
    /// debug, before it plays: here step 2 started through a shell that
    /// prints first (one line a title sequence), so what it prints is the
    /// program's own output.
    static func printingStep(in folder: URL) throws -> URL {
        let step = LessonProcess.buildDirectory.appendingPathComponent("Lesson02AsyncPlaceholder")
        let program = folder.appendingPathComponent("Workbench")
        let lines =
            [#"printf 'retitled\033]0;pwned\007\n'"#] + (0..<5).map { "echo 'debug: cell for row \($0)'" }
        try (["#!/bin/sh"] + lines + ["exec '\(step.path)' \"$@\""]).joined(separator: "\n")
            .write(to: program, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program.path)
        return program
    }

    /// A print changes no verdict: exercise 2's checks on step 2's own code
    /// all pass, and what it printed is shown under each scenario, cut to a
    /// few lines, its escape sequence made visible.
    @Test func whatTheProgramPrintsChangesNoVerdict() async throws {
        let folder = try ScratchFolder.make("printing")
        defer { ScratchFolder.remove(folder) }
        let said = Said()
        let results = await ImageListChecks.check(
            exercise: 2,
            run: ImageListChecks.inChildProcesses(
                try Self.printingStep(in: folder), root: Rig.packageRoot, narrate: { said.append($0) }))
        ExerciseProof.expectSolved(results)
        let printed = said.lines.filter { $0.hasPrefix("your program printed:") }
        #expect(printed.count == ImageListChecks.scenarios(exercise: 2).count)
        let first = try #require(printed.first)
        #expect(first.contains("debug: cell for row 0") && first.contains("debug: cell for row 2"))
        #expect(!first.contains("debug: cell for row 3"), "cut to a few lines: \(first)")
        #expect(first.contains("… and 2 more lines"))
        #expect(first.contains(#"retitled\u{1B}]0;pwned\u{7}"#) && !first.contains("\u{1B}"), "\(first)")
    }

    /// A program that ends at once with status 0 and no report (a learner's
    /// `exit(0)` at row 0), having written a title and a clear-screen
    /// sequence: no verdict is ✓ without a report, and what it wrote reaches
    /// the verdict as text only.
    @Test func aRunWithNoReportProvesNothing() async throws {
        let folder = try ScratchFolder.make("no-report")
        defer { ScratchFolder.remove(folder) }
        let program = folder.appendingPathComponent("Workbench")
        try "#!/bin/sh\nprintf 'bye\\033]0;pwned\\007\\033[2J' >&2\nexit 0\n"
            .write(to: program, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program.path)
        let results = await ImageListChecks.check(
            exercise: 2, run: ImageListChecks.inChildProcesses(program, root: Rig.packageRoot))
        try #require(!results.isEmpty)
        #expect(results.allSatisfy { !$0.passed }, "\(results.filter(\.passed).map(\.bug))")
        let safeguards = results.filter(\.isSafeguard)
        try #require(!safeguards.isEmpty)
        #expect(safeguards.allSatisfy { !$0.wasMeasured && $0.measured.hasPrefix("not measured") })
        let rendered = results.rendered(exercise: 2)
        #expect(!rendered.contains("✓"), "\(rendered)")
        #expect(!rendered.contains("\u{1B}"), "raw escape in: \(rendered)")
        #expect(rendered.contains(#"bye\u{1B}]0;pwned\u{7}\u{1B}[2J"#), "\(rendered)")
        #expect(rendered.contains("? unchecked"))
        #expect(safeguards.allSatisfy { $0.hint.contains("\(WorkbenchLayout.run) --scenario") }, "\(safeguards)")
    }

    /// A program that walks a `Set` of index paths into a one-at-a-time
    /// queue and prints the order the queue ran them in.
    static func setWalker(in folder: URL) async throws -> URL {
        try await compiledSwift(
            """
            import Foundation
            let rows = Set((0..<20).map { IndexPath(indexes: [0, $0]) })
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            let lock = NSLock()
            nonisolated(unsafe) var order: [Int] = []
            for row in rows { queue.addOperation { lock.withLock { order.append(row[1]) } } }
            queue.waitUntilAllOperationsAreFinished()
            print(lock.withLock { order }.map(String.init).joined(separator: " "))
            """, at: folder.appendingPathComponent("walker.swift"))
    }

    /// The same order in every scenario child; in children started plainly,
    /// the order changes from run to run (so the test can tell).
    @Test func aSetWalkedIntoAQueueGivesTheSameOrderInEveryScenarioChild() async throws {
        let folder = try ScratchFolder.make("set-walker")
        defer { ScratchFolder.remove(folder) }
        let walker = try await Self.setWalker(in: folder)
        func orders(_ child: ChildProcess) async throws -> Set<String> {
            var orders: Set<String> = []
            for _ in 0..<4 { orders.insert(try await child.finished(watchdog: Watchdog(limit: .seconds(60))).output) }
            return orders
        }
        let plain = try await orders(ChildProcess(walker))
        try #require(plain.count > 1, "plain children walked the set in one order: \(plain)")
        let scenario = try await orders(ChildProcess.scenario(walker, []))
        #expect(scenario.count == 1, "\(scenario)")
    }
}

/// Lines said from any thread, kept in order.
final class Said: @unchecked Sendable {
    // NSLock, not Mutex: Thread Sanitizer on Linux does not see Mutex.
    private let lock = NSLock()
    private var kept: [String] = []

    func append(_ line: String) { lock.withLock { kept.append(line) } }
    var lines: [String] { lock.withLock { kept } }
}
