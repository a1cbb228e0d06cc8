import Foundation
import HarnessSync
import HostOS

/// The one way this package starts a child process: `swift build`, the
/// workbench, `diff`, a step's own executable for the scoreboard, and the
/// tests' runs of the executables.
///
/// Foundation's `Process` puts each child in a process group of its own, so
/// Ctrl-C at the terminal reaches only the parent: a parent that dies leaves
/// its children running. Here every child is known while it runs, and
/// `endChildrenOnSignals()` ends them, with everything they started, when the
/// parent is interrupted or terminated; a program that calls it also adopts
/// and ends what its children leave behind. A `Watchdog` stops a child that
/// runs too long, or waits for what never comes.
public struct ChildProcess: Sendable {
    /// Where a child's standard output or standard error goes.
    public enum Output: Sendable {
        /// Collected and handed back in `Finished` (through a file: no size
        /// limit, and no pipe that fills up and blocks the child).
        case collect
        /// This process's own (the terminal, when it is one).
        case inherit
        case discard
        case handle(FileHandle)
        /// Each piece as it comes, on a reader thread of its own.
        case stream(@Sendable (Data) -> Void)
        /// For standard error: wherever standard output goes, interleaved as written
        /// (a compiler's log reads in order).
        case intoOutput
    }

    public enum Input: Sendable {
        /// `/dev/null`: the child never waits for a keyboard.
        case nothing
        case handle(FileHandle)
    }

    public var executable: URL
    public var arguments: [String]
    public var directory: URL?
    /// Added to this process's environment (replacing variables of the same name).
    public var environment: [String: String] = [:]
    public var input = Input.nothing
    public var output = Output.collect
    public var errors = Output.collect
    /// The child hands its `--json` report over on a channel of its own
    /// (`ReportChannel`), read back into `Finished.report`; its standard
    /// output stays its own.
    public var receivesReport = false

    public init(_ executable: URL, _ arguments: [String] = []) {
        self.executable = executable
        self.arguments = arguments
    }

    /// A program looked up on the PATH (`swift`, `diff`), as a shell would.
    public init(command: [String]) {
        self.init(URL(fileURLWithPath: "/usr/bin/env"), command)
    }

    /// How a child ended.
    public struct Finished: Sendable {
        /// The exit status, or the number of the signal that ended it.
        public let status: Int32
        /// The signal that ended it, if one did (a crash, or `stop()`).
        public let signal: Int32?
        /// What it wrote, for outputs that were `.collect`ed.
        public let output: String
        public let errors: String
        /// The report handed over on its channel, when `receivesReport` was set and it sent one.
        public let report: Data?
        /// Set when a watchdog stopped it: how long it had run.
        public let stoppedAfter: Duration?

        /// Ended by itself, with this status.
        public var exited: Bool { signal == nil && stoppedAfter == nil }
    }

    /// Starts the child.
    public func launch() throws -> RunningChild {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let scratch = try ScratchFolder.make("child")
        let reportFile = receivesReport ? scratch.appendingPathComponent("report.json") : nil
        var environment = self.environment
        if let reportFile { environment[ReportChannel.variable] = reportFile.path }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        switch input {
        case .nothing: process.standardInput = FileHandle.nullDevice
        case .handle(let handle): process.standardInput = handle
        }
        let output = try Self.connect(self.output, named: "output", in: scratch)
        let errors =
            if case .intoOutput = self.errors {
                Connected(handle: output.handle, connection: .none, writeEnd: nil)
            } else {
                try Self.connect(self.errors, named: "errors", in: scratch)
            }
        if let handle = output.handle { process.standardOutput = handle }
        if let handle = errors.handle { process.standardError = handle }
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try LiveChildren.launch(process)
        } catch {
            ScratchFolder.remove(scratch)
            throw error
        }
        // The child has its own copies of the write ends now; ours must close,
        // or a reader would wait for ever for the end of a pipe.
        output.closeWriteEnd()
        errors.closeWriteEnd()
        return RunningChild(
            process: process, exited: exited, scratch: scratch, output: output.connection,
            errors: errors.connection, reportFile: reportFile)
    }

    /// Runs the child to its end (or until the watchdog stops it).
    public func run(watchdog: Watchdog? = nil) throws -> Finished {
        try launch().wait(watchdog: watchdog)
    }

    /// The same, awaited: the blocking wait happens on a thread of its own.
    public func finished(watchdog: Watchdog? = nil) async throws -> Finished {
        try await launch().finished(watchdog: watchdog)
    }

    // MARK: connecting the outputs

    enum Connection: Sendable {
        case none
        case file(URL)
        case reader(DispatchSemaphore, StreamProgress)
    }

    /// How far the thread reading a streamed output has got: a chunk it is
    /// still handing on, or any it took since the last look, is progress.
    final class StreamProgress: @unchecked Sendable {
        private let lock = Locked(.seen)
        private var chunks = 0
        private var handingOn = false

        func handing(_ on: Bool) {
            lock.withLock {
                handingOn = on
                if on { chunks += 1 }
            }
        }

        /// A mark that differs from the last one while reading goes on.
        var mark: Int? { lock.withLock { handingOn ? nil : chunks } }
    }

    private struct Connected {
        let handle: FileHandle?
        let connection: Connection
        let writeEnd: FileHandle?

        func closeWriteEnd() { try? writeEnd?.close() }
    }

    private static func connect(_ output: Output, named name: String, in scratch: URL) throws -> Connected {
        switch output {
        case .inherit, .intoOutput:
            return Connected(handle: nil, connection: .none, writeEnd: nil)
        case .discard:
            return Connected(handle: FileHandle.nullDevice, connection: .none, writeEnd: nil)
        case .handle(let handle):
            return Connected(handle: handle, connection: .none, writeEnd: nil)
        case .collect:
            let file = scratch.appendingPathComponent(name)
            guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                throw ChildProcessError("cannot make \(file.path) for a child's \(name)")
            }
            let handle = try FileHandle(forWritingTo: file)
            return Connected(handle: handle, connection: .file(file), writeEnd: handle)
        case .stream(let receive):
            let pipe = Pipe()
            let done = DispatchSemaphore(value: 0)
            let progress = StreamProgress()
            let reader = pipe.fileHandleForReading
            // A thread, not a dispatch worker: it blocks for the child's whole
            // life, and dispatch workers are what the lessons' queues run on.
            let thread = Thread {
                // `availableData`: what has come so far (`read(upToCount:)` would
                // wait until that many bytes came, or the end).
                while case let data = reader.availableData, !data.isEmpty {
                    progress.handing(true)
                    receive(data)
                    progress.handing(false)
                }
                try? reader.close()
                done.signal()
            }
            thread.start()
            return Connected(
                handle: pipe.fileHandleForWriting, connection: .reader(done, progress),
                writeEnd: pipe.fileHandleForWriting)
        }
    }
}

/// A child that was started: signal it, wait for it.
public final class RunningChild: @unchecked Sendable {
    // `Process` is not Sendable; it is only read here (pid, status) once started.
    private let process: Process
    private let exited: DispatchSemaphore
    private let scratch: URL
    private let output: ChildProcess.Connection
    private let errors: ChildProcess.Connection
    private let reportFile: URL?
    /// When it started, on the clock that stands still while this process is stopped (Ctrl-Z).
    private let started = JobControl.now

    init(
        process: Process, exited: DispatchSemaphore, scratch: URL, output: ChildProcess.Connection,
        errors: ChildProcess.Connection, reportFile: URL?
    ) {
        self.process = process
        self.exited = exited
        self.scratch = scratch
        self.output = output
        self.errors = errors
        self.reportFile = reportFile
    }

    public var pid: pid_t { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// Sends `signal` to the child and everything it started (its process group).
    public func send(_ signal: Int32) {
        LiveChildren.send(signal, toGroupOf: pid)
    }

    /// Waits for the end, stopping the child if the watchdog's time runs out,
    /// and hands back what it wrote.
    public func wait(watchdog: Watchdog? = nil) -> ChildProcess.Finished {
        var stoppedAfter: Duration?
        var endNotHeard: ChildEnd?
        while true {
            let slice = max(min(watchdog?.remaining ?? .seconds(1), .milliseconds(250)), Watchdog.shortestLook)
            let (seconds, attoseconds) = slice.components
            let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
            if exited.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success { break }
            // Ended, but not heard of: `Process` hears of an end when a socket the child inherited closes, and
            // whatever else inherited it holds it open. What the child left behind is an orphan now, and is
            // ended; a child another thread started at the same moment may hold it too, for as long as it runs.
            // The end is read from the kernel then: a child that had ended by itself was once judged a hang, its
            // unheard end counted as time blocked.
            if !ProcessTable.isRunning(pid) {
                LiveChildren.endOrphans()
                endNotHeard = HostProcess.endOfChild(pid)
                if endNotHeard != nil { break }
            }
            watchdog?.look(at: pid)
            if let watchdog, watchdog.remaining <= .zero {
                stoppedAfter = JobControl.now - started
                stop(askingForBacktrace: watchdog.asksForBacktrace)
                endNotHeard = endAfterStop()
                break
            }
        }
        LiveChildren.ended(pid)
        LiveChildren.endOrphans()
        // A child ended because this program is ending (Ctrl-C): its end is
        // no crash to report or to play again. The signal handling exits.
        while LiveChildren.isEnding { Thread.sleep(forTimeInterval: 60) }
        let outputText = Self.collected(output)
        let errorText = Self.collected(errors)
        let report = reportFile.flatMap { try? Data(contentsOf: $0) }
        ScratchFolder.remove(scratch)
        // `Process` has no status to give before it has heard of the end.
        let (status, signal) =
            endNotHeard.map { ($0.status, $0.signal) }
            ?? (process.terminationStatus,
                process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil)
        return ChildProcess.Finished(
            status: status, signal: signal, output: outputText, errors: errorText, report: report,
            stoppedAfter: stoppedAfter)
    }

    /// Waits for the end of a child that was just stopped: the end `Process` hears of, nil, or else the one the
    /// kernel has (see `wait`).
    private func endAfterStop() -> ChildEnd? {
        while exited.wait(timeout: .now() + .milliseconds(250)) == .timedOut {
            if let end = HostProcess.endOfChild(pid) { return end }
        }
        return nil
    }

    /// `wait`, awaited: the blocking wait happens on a thread of its own, never
    /// on one of Swift concurrency's few shared threads.
    public func finished(watchdog: Watchdog? = nil) async -> ChildProcess.Finished {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.wait(watchdog: watchdog)) }
        }
    }

    /// Ends the child: first, if asked, SIGABRT to the child alone, which the
    /// Swift runtime answers with a backtrace of where it is on standard error
    /// (and then, measured, runs on); then SIGTERM to its group, and SIGKILL
    /// to whatever is left after a grace period.
    public func stop(askingForBacktrace: Bool = false) {
        if askingForBacktrace, case .file(let file) = errors {
            HostSignals.send(HostSignals.abort, to: pid)
            let deadline = ContinuousClock.now + RunningChild.backtraceLimit
            while ContinuousClock.now < deadline, process.isRunning {
                let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
                if text.contains(RunningChild.backtraceEnd) { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        LiveChildren.end([pid], with: HostSignals.terminate)
    }

    /// The last line of the runtime's backtrace ("Backtrace took 0.41s").
    static let backtraceEnd = "Backtrace took"
    /// The backtracer symbolicates every frame: seconds on a busy machine.
    static let backtraceLimit = Duration.seconds(15)

    private static func collected(_ connection: ChildProcess.Connection) -> String {
        switch connection {
        case .none: return ""
        case .file(let file): return (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        case .reader(let done, let progress):
            // A grandchild that outlived the child may still hold the pipe open: given up on 2 s after the
            // reader last made progress, never while it still hands on what the child wrote (a long stream,
            // read on a loaded machine, takes longer than that).
            var last = progress.mark
            while done.wait(timeout: .now() + 2) == .timedOut {
                let now = progress.mark
                if now != nil && now == last { break }
                last = now
            }
            return ""
        }
    }
}

/// The children running now, so a signal to this process can end them, and
/// whatever they started.
///
/// A program that ends its children on signals (`lessons`, `Workbench
/// --check`) also adopts the orphans of everything it starts (Linux's "child
/// subreaper"): a process whose parent ended is reparented here, not to PID
/// 1, so it can still be found and ended. Whatever a child started and left
/// behind (a learner's code that starts a program from a Dispatch thread,
/// with every signal blocked) is killed when that child ends.
enum LiveChildren {
    private struct State {
        var pids: Set<pid_t> = []
        /// Set once this process is ending: no new child may start.
        var ending = false
    }

    private static let lock = Locked(.seen)
    nonisolated(unsafe) private static var state = State()
    /// How long children get to end after SIGTERM or SIGINT before SIGKILL.
    static let grace = Duration.seconds(3)

    static func launch(_ process: Process) throws {
        try lock.withLock {
            guard !state.ending else { throw ChildProcessError("this program is ending; no new child started") }
            // A child inherits the signal mask of the thread that starts it, and
            // Dispatch's threads (an async function's, a concurrentPerform's)
            // block nearly every signal: started there, a child would ignore
            // SIGTERM and SIGINT for good, and never show a backtrace. So the
            // mask is emptied while it starts (measured: SigBlk fffffffe3bfbea27
            // in a child started from a Dispatch thread, 0 from the main thread).
            try HostSignals.withNoneBlocked { try process.run() }
            state.pids.insert(process.processIdentifier)
        }
    }

    static var isEnding: Bool { lock.withLock { state.ending } }

    /// What Ctrl-Z stops (`JobControl`): the children started here, which pass the stop on below them, and
    /// whatever else runs below this process (adopted orphans, what a learner's code started), which is stopped.
    static func stopTargets() -> (own: [pid_t], others: [pid_t]) {
        let own = Array(lock.withLock { state.pids }).filter(ProcessTable.isRunning)
        let theirs = Set(own.flatMap(ProcessTable.running(under:)))
        return (own, continueTargets().filter { !theirs.contains($0) })
    }

    /// What `fg` continues: everything below this process.
    static func continueTargets() -> [pid_t] {
        ProcessTable.children(of: HostProcess.id).flatMap(ProcessTable.running(under:))
    }

    static func ended(_ pid: pid_t) {
        _ = lock.withLock { state.pids.remove(pid) }
    }

    /// Whether this process adopts its descendants' orphans (`adoptOrphans`).
    nonisolated(unsafe) private static var adopting = false

    /// From now on a process whose parent ends, anywhere below this one, is
    /// reparented here rather than to PID 1 (Linux's "child subreaper"), and
    /// killed when the next child ends: whatever a command starts is gone when
    /// it ends. Called once at start-up, before any child starts.
    static func adoptOrphans() {
        adopting = HostProcess.adoptOrphans()
    }

    /// Sends `signal` to the child's process group, as Ctrl-C reaches a
    /// terminal's: what the child started elsewhere is the child's to end
    /// (or `end`'s, which takes the whole tree).
    static func send(_ signal: Int32, toGroupOf pid: pid_t) {
        // The child leads its group (Foundation makes one per child); should it
        // have left the group, it still gets the signal itself.
        HostSignals.send(signal, toGroup: pid)
        HostSignals.send(signal, to: pid)
    }

    /// What `pids` have running now: themselves, everything they started, and
    /// the orphans this process adopted (whose starters have ended). Walked
    /// down from each, never read from every process on the machine: `end`
    /// asks 50 times a second while its children go.
    private static func remnants(of pids: [pid_t]) -> Set<pid_t> {
        Set((pids + orphans()).flatMap(ProcessTable.running(under:)))
    }

    /// This process's children that `ChildProcess` did not start: adopted orphans.
    private static func orphans() -> [pid_t] {
        guard adopting else { return [] }
        let known = lock.withLock { state.pids }
        return ProcessTable.children(of: HostProcess.id).filter { !known.contains($0) }
    }

    /// Sends `signal` to each child and what it started, waits up to `grace`
    /// for them to go, then kills what is left. What they had started is
    /// remembered from the start: a grandchild that ignores `signal` is not
    /// spared because its parent went first and it now belongs to PID 1.
    static func end(_ pids: [pid_t], with signal: Int32) {
        let started = remnants(of: pids)
        for pid in pids { HostSignals.send(signal, toGroup: pid) }
        for pid in started { HostSignals.send(signal, to: pid) }
        func left() -> Set<pid_t> { remnants(of: pids).union(started.filter(ProcessTable.isRunning)) }
        let deadline = ContinuousClock.now + grace
        while ContinuousClock.now < deadline, !left().isEmpty {
            Thread.sleep(forTimeInterval: 0.02)
        }
        for pid in left() { HostSignals.send(HostSignals.kill, to: pid) }
        endOrphans()
    }

    /// Kills the orphans adopted so far, and what they started, and collects
    /// their ends (no child of this process is left a zombie). The children
    /// this process started are `Process`'s to collect, never touched here.
    static func endOrphans() {
        guard adopting else { return }
        // An orphan's own children are orphaned in turn when it goes: a few rounds.
        for _ in 0..<8 {
            let orphans = orphans()
            guard !orphans.isEmpty else { return }
            for pid in orphans.flatMap(ProcessTable.running(under:)) { HostSignals.send(HostSignals.kill, to: pid) }
            for pid in orphans { HostProcess.collectEnd(of: pid) }
        }
    }

    /// Ends every child with `signal` and stops new ones from starting.
    static func endAll(with signal: Int32) {
        let pids = lock.withLock {
            state.ending = true
            return Array(state.pids)
        }
        end(pids, with: signal)
    }
}

extension ChildProcess {
    /// A child that plays a scenario or a story and reports it (a step, the
    /// workbench): its report on its own channel, and the same flags for any
    /// code, so the same seed gives the same figures in every run.
    public static func scenario(_ executable: URL, _ arguments: [String]) -> ChildProcess {
        var child = ChildProcess(executable, arguments)
        child.receivesReport = true
        child.environment = sameFiguresEnvironment
        return child
    }

    /// Swift seeds `Set` and `Dictionary` hashing per process: code that walks
    /// a `Set` of index paths into a one-at-a-time queue asked for its icons in
    /// another order in each run, and got 9 or 10 requests on the same seed.
    public static let sameFiguresEnvironment = ["SWIFT_DETERMINISTIC_HASHING": "1"]

    /// The signals that end a command-line program run by a person or a script.
    public static let endingSignals = [
        HostSignals.interrupt, HostSignals.terminate, HostSignals.hangUp, HostSignals.quit,
    ]

    /// From now on, SIGINT (Ctrl-C), SIGTERM, SIGHUP and SIGQUIT end this
    /// process the careful way: the terminal is put back (`ExitCleanup`: raw
    /// mode, the cursor, the colours); each running child gets the same signal
    /// (with everything it started, in any group), then SIGKILL if it is still
    /// there after a grace period; the scratch folders go; `beforeExit` runs
    /// (wipe a progress line); and the process exits with 128 + the signal's
    /// number, as a shell reports a program the signal ended.
    public static func endChildrenOnSignals(beforeExit: @escaping @Sendable () -> Void = {}) {
        LiveChildren.adoptOrphans()
        ExitCleanup.signalsHandledElsewhere()
        // Ctrl-Z stops the children too, and their watchdogs do not count the time stopped.
        JobControl.passOnStops()
        // Handled from here on, before anything is started: until now a signal ended this process by its default
        // action. Neither ignored (it was dropped, and `lessons play` went on to play the step) nor blocked (it
        // went to a thread that does not block it, Thread Sanitizer's own, where it was never handled).
        SignalRelay.install(endingSignals)
        let waiter = Thread {
            while let number = SignalRelay.next() {
                // First: the person who pressed Ctrl-C gets their terminal back while the children end, and
                // keeps it so (a SIGCONT, which a closed terminal sends with SIGHUP, no longer makes it raw).
                JobControl.leaveTheTerminalAlone()
                ExitCleanup.runNow()
                LiveChildren.endAll(with: number)
                ScratchFolder.removeAll()
                beforeExit()
                SignalSafe.exit(128 + number)
            }
        }
        waiter.name = "ending signals"
        waiter.start()
    }

    /// For a program about to replace itself (`exec`) with one that handles its own signals: from now on an
    /// ending signal takes its default action at once, and one already heard ends the program here, which then
    /// never replaces itself (`SignalRelay` knows it the moment its handler returns). One that libdispatch had
    /// taken in but not yet handed to its source was lost with the process it replaced: `lessons run 5` played on
    /// after a Ctrl-C sent 10 ms after it started, 20 times of 20.
    public static func handOverSignals() {
        HostSignals.resetToDefault(endingSignals)
        // The thread that waits for signals is ending this process: it exits.
        while SignalRelay.heard != nil { Thread.sleep(forTimeInterval: 60) }
    }

    /// Ends what is left of everything this process started, and what that
    /// started (once `endChildrenOnSignals` made it adopt orphans): for a
    /// program that runs code it did not write, on its way out. A learner's
    /// code that starts `setsid sleep …` and returns left it running under
    /// PID 1 when the workbench was played directly.
    public static func endLeftovers() {
        LiveChildren.endOrphans()
    }

}

public struct ChildProcessError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
