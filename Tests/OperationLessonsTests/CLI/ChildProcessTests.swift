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

/// A FIFO that child processes write lines to ("4242" when something has
/// started), read on a thread of its own: a test waits for a child's own word
/// that it got somewhere (`Changes`, with its hang guard), never by looking at
/// /proc on a timer. The reader holds the FIFO open for writing too, so a
/// writer never blocks and the read never sees an end until `stop()`.
final class Announcements: @unchecked Sendable {
    let path: String
    private let changes = Changes()
    // NSLock, as Changes: Thread Sanitizer on Linux does not see Mutex.
    private let lock = NSLock()
    private var said: [String] = []
    private var stopping = false
    private var ended = false
    private let descriptor: Int32
    /// Written by `lines()` after what the children wrote: once it is read, all of that is.
    private static let end = "end of announcements"

    /// A FIFO named `announcements` in `folder`.
    init(in folder: URL) throws {
        path = folder.appendingPathComponent("announcements").path
        guard mkfifo(path, 0o600) == 0 else { throw TestFailure("mkfifo \(path): errno \(errno)") }
        descriptor = open(path, O_RDWR)
        guard descriptor >= 0 else { throw TestFailure("open \(path): errno \(errno)") }
        Thread.detachNewThread { [self] in readUntilTheEnd() }
    }

    private func readUntilTheEnd() {
        var pending = Data()
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            guard count > 0 else { break }
            pending.append(contentsOf: buffer[..<count])
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending = Data(pending[(newline + 1)...])
                lock.withLock { line == Self.end ? (ended = true) : said.append(line) }
                changes.notify()
            }
            if lock.withLock({ ended }) { break }
        }
        close(descriptor)
    }

    /// The `count`th line written (from 1), once it is there.
    func line(_ count: Int, _ what: String) async throws -> String {
        try await changes.wait(what) { self.lock.withLock { self.said.count >= count } }
        return lock.withLock { said[count - 1] }
    }

    /// Every line written before this call, once read; the FIFO is closed after.
    func lines() async throws -> [String] {
        stop()
        try await changes.wait("the announcements read to their end") { self.lock.withLock { self.ended } }
        return lock.withLock { said }
    }

    /// Ends the reading thread (for a `defer`: a test that failed early leaves no thread blocked on the FIFO).
    func stop() {
        lock.withLock {
            guard !stopping else { return }
            stopping = true
            _ = "\(Self.end)\n".withCString { write(descriptor, $0, strlen($0)) }
        }
    }
}

extension Announcements {
    /// `script` played by `/bin/sh` with the path of announcements in a scratch folder (`name`) as its `$0`; `body`
    /// gets the shell and the pids on the first line announced (`what`, at least one). None of them outlives the
    /// call, nor does the folder.
    static func shell<Result>(
        _ name: String, _ script: String, announcing what: String,
        _ body: (RunningChild, [pid_t]) async throws -> Result
    ) async throws -> Result {
        let folder = try ScratchFolder.make(name)
        defer { ScratchFolder.remove(folder) }
        let announcements = try Announcements(in: folder)
        defer { announcements.stop() }
        let shell = try ChildProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script, announcements.path]).launch()
        defer { if shell.isRunning { shell.send(SIGKILL) } }
        let announced = try await announcements.line(1, what).split(separator: " ").compactMap { pid_t($0) }
        defer { for pid in announced where isAlive(pid) { kill(pid, SIGKILL) } }
        try #require(!announced.isEmpty, "\(what): no pid")
        return try await body(shell, announced)
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
        // The scenario's own watchdog stops it at its limit, asking where it was: this one waits for what it says.
        #expect(CheckWatch.limit(.standard) == .milliseconds(33_500) + CheckWatch.hangLimit)
        #expect(remaining > CheckWatch.limit(.standard) + CheckWatch.stopMargin - .seconds(10))
        #expect(remaining <= CheckWatch.limit(.standard) + CheckWatch.stopMargin)
    }

    /// 20 MB printed without a newline, as exercise 10's code once did: each
    /// byte is looked at once and only the line's start is held, so the line
    /// after it still starts its scenario's limit.
    @Test func aLineOf20MBIsHeldOnlyByItsStart() throws {
        let watch = CheckWatch(try #require(ExerciseCatalog.exercise(2)))
        let piece = Data(repeating: UInt8(ascii: "x"), count: 65_536)
        for _ in 0..<320 { watch.saw(piece) }
        #expect(watch.held == 200)
        watch.saw(Data("\n  playing standard: first screen, scroll down 20 rows and back\n".utf8))
        #expect(watch.held == 0)
        #expect(watch.watchdog.remaining > CheckWatch.hangLimit, "the scenario's limit started")
    }

    /// A workbench played directly (`swift run --package-path Workbench
    /// Workbench`), whose learner's code starts a program in a session of its
    /// own: the program is gone when the workbench ends, as under `lessons check`.
    @Test func aWorkbenchPlayedDirectlyEndsWhatTheLearnersCodeStarted() async throws {
        let folder = try ScratchFolder.make("workbench-leaves")
        defer { ScratchFolder.remove(folder) }
        let announcements = try Announcements(in: folder)
        defer { announcements.stop() }
        let run = try await LessonProcess.run("BlogOperationFixture", [], environment: ["FIXTURE_STARTS": announcements.path])
        let started = try await announcements.lines().compactMap { pid_t($0) }
        defer { for pid in started where isAlive(pid) { kill(pid, SIGKILL) } }
        // The fixture is the blogs' lockless operation: a TSan-built child reports its race and exits 66, which is
        // not what this test is about.
        #expect(run.status == 0 || (ThreadSanitizer.inChildren && run.status == 66), "\(run.errors)")
        try #require(started.count == 1, "the learner's code started nothing")
        #expect(!isAlive(started[0]), "left running under PID 1")
    }

    /// Stopping a child ends what it started too: its whole process group.
    @Test func stoppingAChildEndsItsChildren() async throws {
        // The shell says its two children once both are started.
        try await Announcements.shell(
            "grandchildren", "sleep 300 & first=$!; sleep 300 & echo \"$first $!\" > \"$0\"; wait",
            announcing: "the shell's two sleeps"
        ) { child, grandchildren in
            try #require(grandchildren.count == 2)
            let finished = await child.finished(watchdog: Watchdog(limit: .milliseconds(200)))
            #expect(finished.stoppedAfter != nil)
            #expect(finished.signal == SIGTERM)
            #expect(grandchildren.allSatisfy { !isAlive($0) })
        }
    }

    /// A child that ended by itself has ended, whatever still holds what it inherited. `Process` hears of an end
    /// when a socket the child inherited closes; what the child left in a session of its own holds it open, and
    /// so, for as long as it runs, does a child that another thread started at the same moment. Until then the
    /// end, not heard, counted as time blocked: in CI a watchdog "stopped" `lessons watch` a minute after it had
    /// quit, on `q`, with status 1.
    @Test func aChildThatEndedIsHeardWhileWhatItLeftHoldsWhatItInherited() async throws {
        // The grandchild says its pid, and keeps every descriptor the shell inherited, but the outputs.
        try await Announcements.shell(
            "unheard-end", #"setsid sh -c 'echo $$ > "$0"; exec sleep 120' "$0" </dev/null >/dev/null 2>&1 & exit 3"#,
            announcing: "the grandchild in a session of its own"
        ) { child, announced in
            let grandchild = announced[0]
            let finished = await child.finished(watchdog: Watchdog(limit: .milliseconds(200)))
            #expect(finished.stoppedAfter == nil, "the child ended by itself")
            #expect(finished.status == 3 && finished.signal == nil)
            #expect(isAlive(grandchild), "what it left in a session of its own is not this test's to end")
        }
    }

    /// A grandchild in a session of its own that ignores SIGTERM (as `swiftc`
    /// makes a group of its own under `swift-build`): its parent goes at the
    /// first signal, and it is killed all the same once the grace is over.
    /// It holds what it inherited: once, the stop was heard only when its
    /// `sleep 120` ended.
    @Test func stoppingAChildEndsWhatItStartedInAGroupOfItsOwnIgnoringTheSignal() async throws {
        // The grandchild says its pid once it ignores the signal; `sleep` keeps the pid and the ignoring.
        try await Announcements.shell(
            "grandchild", #"setsid sh -c "trap '' TERM; echo \$\$ > \"\$0\"; exec sleep 120" "$0" & wait"#,
            announcing: "the grandchild ignoring SIGTERM"
        ) { child, announced in
            let grandchild = announced[0]
            let asked = ContinuousClock.now
            let finished = await child.finished(watchdog: Watchdog(limit: .milliseconds(200)))
            #expect(finished.signal == SIGTERM)
            #expect(!isAlive(grandchild), "the grandchild was left running")
            // A hang guard, far above the 3 s grace: the grandchild's own end is 120 s away.
            #expect(ContinuousClock.now - asked < .seconds(60), "the stop was heard only when the grandchild ended")
        }
    }
}

/// Ctrl-C, SIGTERM or SIGHUP to `lessons`: it ends what it started, even
/// what its children started and left, and removes its scratch folders. Each
/// test plays a copy of `lessons` beside stub steps (shell scripts) that say on
/// an `Announcements` FIFO that they run: the signal comes when a step is known
/// to run, however loaded the machine, and no real step is played.
@Suite struct SignalTests {
    /// A copy of `lessons` in `folder`, beside a stub of every step that runs `script`.
    static func lessons(besideStepsRunning script: String, in folder: URL) throws -> URL {
        let lessons = folder.appendingPathComponent("lessons")
        try FileManager.default.copyItem(at: Rig.productsDirectory.appendingPathComponent("lessons"), to: lessons)
        for entry in LessonCatalog.all {
            let step = folder.appendingPathComponent(entry.target)
            try "#!/bin/sh\n\(script)\n".write(to: step, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: step.path)
        }
        return lessons
    }

    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func lessonsEndsItsChildrenAndRemovesItsScratchFolders(signal: Int32) async throws {
        let folder = try ScratchFolder.make("signalled-steps")
        let temporary = try ScratchFolder.make("lessons-tmp")
        let pictures = try ScratchFolder.make("lessons-out")
        defer {
            for made in [folder, temporary, pictures] { ScratchFolder.remove(made) }
        }
        let announcements = try Announcements(in: folder)
        defer { announcements.stop() }
        // Each step says its pid, then waits far longer than the test.
        let lessons = try Self.lessons(
            besideStepsRunning: "echo $$ > '\(announcements.path)'; exec sleep 300", in: folder)
        var command = ChildProcess(lessons, ["timelines", "--out", pictures.path])
        command.environment = ["TMPDIR": temporary.path]
        let child = try command.launch()
        // A test that fails before its signal leaves no `lessons` running.
        defer { if child.isRunning { child.send(SIGKILL) } }
        let step = try #require(pid_t(try await announcements.line(1, "lessons timelines to start its first step")))
        defer { if isAlive(step) { kill(step, SIGKILL) } }
        let inTemporary = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
        #expect(!inTemporary.isEmpty, "a step runs with a Caches folder of its own")
        child.send(signal)
        let finished = await child.finished(watchdog: Watchdog(limit: .seconds(60)))

        #expect(finished.status == 128 + signal)
        #expect(!isAlive(step), "the step was left running")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == [])
    }

    /// Steps that each start a process in a session of its own that ignores
    /// SIGTERM, SIGINT and SIGHUP (as a learner's code may, started from a
    /// Dispatch thread with its signals blocked), say its pid, and then wait,
    /// or end at once with no report.
    static func lessonsBesideStepsThatLeaveAProcessBehind(
        in folder: URL, announcements: Announcements, waiting: Bool
    ) throws -> URL {
        try lessons(
            besideStepsRunning: """
                setsid sh -c "trap '' TERM INT HUP; exec sleep 300" &
                echo $! > '\(announcements.path)'
                \(waiting ? "wait" : "exit 1")
                """, in: folder)
    }

    /// SIGTERM to `lessons` while a step runs: the process the step started is
    /// gone too, though it ignores the signal and its parent went first.
    @Test func lessonsEndsWhatItsChildrenStartedWhenItIsEnded() async throws {
        let folder = try ScratchFolder.make("leaving-steps")
        defer { ScratchFolder.remove(folder) }
        let announcements = try Announcements(in: folder)
        defer { announcements.stop() }
        let lessons = try Self.lessonsBesideStepsThatLeaveAProcessBehind(
            in: folder, announcements: announcements, waiting: true)
        let child = try ChildProcess(lessons, ["scoreboard", "--jobs", "1"]).launch()
        defer { if child.isRunning { child.send(SIGKILL) } }
        let first = try #require(pid_t(try await announcements.line(1, "a step to start its process")))
        defer { if isAlive(first) { kill(first, SIGKILL) } }
        child.send(SIGTERM)
        let finished = await child.finished(watchdog: Watchdog(limit: .seconds(60)))
        let left = try await announcements.lines().compactMap { pid_t($0) }
        defer { for pid in left where isAlive(pid) { kill(pid, SIGKILL) } }
        #expect(finished.status == 128 + SIGTERM)
        #expect(left.allSatisfy { !isAlive($0) }, "left running: \(left.filter(isAlive))")
    }

    /// A step that ends by itself, leaving its process running: gone when
    /// the step's run is over, not left to PID 1.
    @Test func whatAChildLeftBehindIsGoneWhenTheCommandEnds() async throws {
        let folder = try ScratchFolder.make("leaving-steps")
        defer { ScratchFolder.remove(folder) }
        let announcements = try Announcements(in: folder)
        defer { announcements.stop() }
        let lessons = try Self.lessonsBesideStepsThatLeaveAProcessBehind(
            in: folder, announcements: announcements, waiting: false)
        let finished = try await ChildProcess(lessons, ["scoreboard", "--jobs", "1"])
            .finished(watchdog: Watchdog(limit: .seconds(60)))
        let left = try await announcements.lines().compactMap { pid_t($0) }
        defer { for pid in left where isAlive(pid) { kill(pid, SIGKILL) } }
        #expect(finished.exited, "\(finished.errors)")
        try #require(!left.isEmpty, "no step started its process")
        #expect(left.allSatisfy { !isAlive($0) }, "left running: \(left.filter(isAlive))")
    }
}
