import Foundation
import LessonChecks
import LessonKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Whether a process is still there: not in /proc, or a zombie (it has ended,
/// and waits for its parent to collect its status), counts as gone.
func isAlive(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
    else { return false }
    return stat[stat.index(close, offsetBy: 2)] != "Z"
}

/// The processes whose parent is `pid`, with their command lines.
func children(of pid: pid_t) -> [(pid: pid_t, command: String)] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap { entry in
        guard let child = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        guard fields.count > 1, pid_t(fields[1]) == pid else { return nil }
        let command = (try? String(contentsOfFile: "/proc/\(entry)/cmdline", encoding: .utf8)) ?? ""
        return (child, command.replacingOccurrences(of: "\u{0}", with: " "))
    }
}

/// `source` written to `file` and compiled beside it (`Stuck.swift` to
/// `Stuck`), for a test: a third of a second of `swiftc`.
func compiledSwift(_ source: String, at file: URL) async throws -> URL {
    try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try source.write(to: file, atomically: true, encoding: .utf8)
    let program = file.deletingPathExtension()
    let compiled = try await ChildProcess(command: ["swiftc", "-Onone", "-g", "-o", program.path, file.path])
        .finished(watchdog: Watchdog(limit: .seconds(120)))
    try #require(compiled.exited && compiled.status == 0, "swiftc: \(compiled.errors)")
    return program
}

/// The one child-process runner: a watchdog that stops a child that runs too
/// long (and finds where it was), and an end that takes its whole group.
@Suite struct ChildProcessTests {
    /// A Swift program stuck in an endless loop, compiled for the test (a
    /// third of a second), its source under `Sources/Workbench/` like a
    /// learner's. It says it plays `standard` first, as the workbench does.
    static func stuckProgram(in folder: URL) async throws -> URL {
        try await compiledSwift(
            """
            import Glibc
            let line = "  playing standard: first screen, scroll down 20 rows and back\\n"
            _ = line.withCString { write(1, $0, strlen($0)) }
            func spin() -> Int {
                var turns = 0
                while turns >= 0 { turns &+= 1 }
                return turns
            }
            _ = spin()
            """, at: folder.appendingPathComponent("Sources/Workbench/Stuck.swift"))
    }

    @Test func aWatchdogStopsAStuckProgramAndFindsTheLineItWasStuckOn() async throws {
        let folder = try ScratchFolder.make("stuck")
        defer { ScratchFolder.remove(folder) }
        var stuck = ChildProcess(try await Self.stuckProgram(in: folder))
        // Its backtracer on, whatever this process says: the TSan leg turns it off for the TSan-built programs.
        stuck.environment = ["SWIFT_BACKTRACE": "enable=yes"]
        let watch = CheckWatch(try #require(ExerciseCatalog.exercise(2)))
        stuck.output = .stream { watch.saw($0) }
        let child = try stuck.launch()
        let finished = await child.finished(watchdog: Watchdog(limit: .seconds(1), asksForBacktrace: true))

        #expect(finished.stoppedAfter.map { $0 >= .seconds(1) } == true)
        #expect(!isAlive(child.pid))
        #expect(
            finished.errors.contains("Backtrace took"), "the runtime wrote no backtrace: \(finished.errors.prefix(500))"
        )
        // The line is there when the instruction the signal found has one (about
        // half the time in an unoptimised loop): the file and function always are.
        let place = try #require(WorkbenchDiagnostics.stuckPlace(finished.errors))
        #expect(place.hasPrefix("Sources/Workbench/Stuck.swift") && place.hasSuffix(" (spin())"), "\(place)")
        let message = watch.stoppedMessage(after: try #require(finished.stoppedAfter), errors: finished.errors)
        #expect(message.contains("scenario standard"))
        #expect(message.contains("It was here: Sources/Workbench/Stuck.swift"))
    }

    /// A scenario gets the longest its story can take, plus the 30 s the story clock waits for a busy app.
    @Test func aScenariosLimitIsItsLongestStoryPlusTheHangGuard() throws {
        #expect(Scenario.standard.longestStory == .milliseconds(33_500))
        let watch = CheckWatch(try #require(ExerciseCatalog.exercise(2)))
        #expect(watch.watchdog.remaining <= CheckWatch.hangLimit)
        watch.saw(Data("Checking the workbench against exercise 2:\n  playing stan".utf8))
        #expect(watch.watchdog.remaining <= CheckWatch.hangLimit, "half a line starts nothing")
        watch.saw(Data("dard: first screen, scroll down 20 rows and back\n".utf8))
        // Wall time, read a moment later: a generous margin, never an exact figure.
        let remaining = watch.watchdog.remaining
        #expect(remaining > .milliseconds(33_500) + CheckWatch.hangLimit - .seconds(10))
        #expect(remaining <= .milliseconds(33_500) + CheckWatch.hangLimit)
    }

    /// Stopping a child ends what it started too: its whole process group.
    @Test func stoppingAChildEndsItsChildren() async throws {
        let child = try ChildProcess(command: ["sh", "-c", "sleep 300 & sleep 300 & wait"]).launch()
        var grandchildren: [pid_t] = []
        let started = await eventually(timeoutSeconds: 10) {
            grandchildren = children(of: child.pid).map(\.pid)
            return grandchildren.count == 2
        }
        try #require(started)
        let finished = await child.finished(watchdog: Watchdog(limit: .milliseconds(200)))
        #expect(finished.stoppedAfter != nil)
        #expect(finished.signal == SIGTERM)
        #expect(grandchildren.allSatisfy { !isAlive($0) })
    }

    /// A grandchild in a session of its own that ignores SIGTERM (as `swiftc`
    /// makes a group of its own under `swift-build`): its parent goes at the
    /// first signal, and it is killed all the same once the grace is over.
    /// It holds what it inherited, so the stop is heard only once it is gone:
    /// before, that was when its `sleep 120` ended.
    @Test func stoppingAChildEndsWhatItStartedInAGroupOfItsOwnIgnoringTheSignal() async throws {
        let child = try ChildProcess(command: ["sh", "-c", "setsid sh -c \"trap '' TERM; exec sleep 120\" & wait"])
            .launch()
        var grandchild: pid_t?
        let started = await eventually(timeoutSeconds: 10) {
            grandchild = children(of: child.pid).first { $0.command.hasPrefix("sleep 120") }?.pid
            return grandchild != nil
        }
        try #require(started)
        defer { if let grandchild, isAlive(grandchild) { kill(grandchild, SIGKILL) } }
        let asked = ContinuousClock.now
        let finished = await child.finished(watchdog: Watchdog(limit: .milliseconds(200)))
        #expect(finished.signal == SIGTERM)
        #expect(grandchild.map(isAlive) == false, "the grandchild was left running")
        // A hang guard, far above the 3 s grace: the grandchild's own end is 120 s away.
        #expect(ContinuousClock.now - asked < .seconds(60), "the stop was heard only when the grandchild ended")
    }
}

/// Ctrl-C, SIGTERM or SIGHUP to `lessons` ends what it started: no child left
/// running with nobody to wait for it, no scratch folder left behind.
@Suite struct SignalTests {
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func lessonsEndsItsChildrenAndRemovesItsScratchFolders(signal: Int32) async throws {
        let temporary = try ScratchFolder.make("lessons-tmp")
        let pictures = try ScratchFolder.make("lessons-out")
        defer {
            ScratchFolder.remove(temporary)
            ScratchFolder.remove(pictures)
        }
        // Steps 1–7 play unpaced; step 8 plays its own story on the wall clock,
        // at a tenth of its speed: minutes, while the signal comes.
        var lessons = ChildProcess(
            Rig.productsDirectory.appendingPathComponent("lessons"),
            ["timelines", "--speed", "0.1", "--out", pictures.path])
        lessons.environment = ["TMPDIR": temporary.path]
        let child = try lessons.launch()
        var step8: pid_t?
        let started = await eventually(timeoutSeconds: 60) {
            step8 = children(of: child.pid).first { $0.command.contains("Lesson08Dependencies") }?.pid
            return step8 != nil
        }
        try #require(started, "lessons never started step 8")
        let inTemporary = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
        #expect(!inTemporary.isEmpty, "step 8 runs with a Caches folder and an output file of its own")
        child.send(signal)
        let finished = await child.finished(watchdog: Watchdog(limit: .seconds(60)))
        defer { if let step8, isAlive(step8) { kill(step8, SIGKILL) } }

        #expect(finished.status == 128 + signal)
        #expect(step8.map(isAlive) == false, "step 8 was left running")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == [])
    }

    /// A copy of `lessons` beside steps that each start a process in a
    /// session of its own that ignores SIGTERM, SIGINT and SIGHUP (as a
    /// learner's code may, started from a Dispatch thread with its signals
    /// blocked), note its pid in `left-behind`, and then wait, or end at once
    /// with no report.
    static func stepsThatLeaveAProcessBehind(in folder: URL, waiting: Bool) throws -> URL {
        let lessons = folder.appendingPathComponent("lessons")
        try FileManager.default.copyItem(at: Rig.productsDirectory.appendingPathComponent("lessons"), to: lessons)
        let script = [
            "#!/bin/sh",
            "setsid sh -c \"trap '' TERM INT HUP; exec sleep 300\" &",
            "echo $! >> '\(folder.path)/left-behind'",
            waiting ? "wait" : "exit 1",
        ].joined(separator: "\n")
        for entry in LessonCatalog.all {
            let step = folder.appendingPathComponent(entry.target)
            try script.write(to: step, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: step.path)
        }
        return lessons
    }

    static func leftBehind(in folder: URL) -> [pid_t] {
        let text = (try? String(contentsOf: folder.appendingPathComponent("left-behind"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { pid_t($0) }
    }

    /// SIGTERM to `lessons` while a step runs: the process the step started is
    /// gone too, though it ignores the signal and its parent went first.
    @Test func lessonsEndsWhatItsChildrenStartedWhenItIsEnded() async throws {
        let folder = try ScratchFolder.make("leaving-steps")
        defer { ScratchFolder.remove(folder) }
        let lessons = try Self.stepsThatLeaveAProcessBehind(in: folder, waiting: true)
        let child = try ChildProcess(lessons, ["scoreboard", "--jobs", "1"]).launch()
        let started = await eventually(timeoutSeconds: 60) { !Self.leftBehind(in: folder).isEmpty }
        try #require(started, "no step started its process")
        let left = Self.leftBehind(in: folder)
        defer { for pid in left where isAlive(pid) { kill(pid, SIGKILL) } }
        child.send(SIGTERM)
        let finished = await child.finished(watchdog: Watchdog(limit: .seconds(60)))
        #expect(finished.status == 128 + SIGTERM)
        #expect(left.allSatisfy { !isAlive($0) }, "left running: \(left.filter(isAlive))")
    }

    /// A step that ends by itself, leaving its process running: gone when
    /// the step's run is over, not left to PID 1.
    @Test func whatAChildLeftBehindIsGoneWhenTheCommandEnds() async throws {
        let folder = try ScratchFolder.make("leaving-steps")
        defer { ScratchFolder.remove(folder) }
        let lessons = try Self.stepsThatLeaveAProcessBehind(in: folder, waiting: false)
        let finished = try await ChildProcess(lessons, ["scoreboard", "--jobs", "1"])
            .finished(watchdog: Watchdog(limit: .seconds(60)))
        let left = Self.leftBehind(in: folder)
        defer { for pid in left where isAlive(pid) { kill(pid, SIGKILL) } }
        #expect(finished.exited, "\(finished.errors)")
        try #require(!left.isEmpty, "no step started its process")
        #expect(left.allSatisfy { !isAlive($0) }, "left running: \(left.filter(isAlive))")
    }
}
