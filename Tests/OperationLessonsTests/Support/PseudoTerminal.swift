import Foundation
import LessonKit
import Synchronization
import TerminalKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An executable of this package run on a pseudo-terminal, as a learner's
/// terminal runs it: it sees a keyboard and a screen, so it draws its live
/// screen (and step 9 enters raw mode). What it drew is kept, and the
/// terminal's modes are compared before and after.
enum PseudoTerminal {
    struct Run {
        var status: Int32
        /// The signal that ended it, if one did.
        var signal: Int32?
        /// The terminal's line modes (echo, line editing) are as they were before; false once a key closed the
        /// terminal (`closesTerminal`): there is none left to look at.
        var restored: Bool
        var output: String
        var report: [String: Any]?
    }

    /// The program while it runs: its pid, and the controlling side of its terminal.
    struct Running: Sendable {
        var pid: pid_t
        var terminal: Int32
    }

    /// What to do once the screen shows `after` (or, given `once`, once it
    /// returns): type `send`, send the signal `signal` to the program, or close
    /// the terminal as a terminal window closes (its controlling side goes).
    struct Key {
        var after: String
        var send: String?
        var signal: Int32?
        var once: (@Sendable (Running) async throws -> Void)?
        var closesTerminal = false

        static func type(_ text: String, after: String) -> Key { Key(after: after, send: text) }
        static func signal(_ number: Int32, after: String) -> Key { Key(after: after, signal: number) }
        /// The signal once `ready` returns: a child's own word on an `Announcements` FIFO, say.
        static func signal(_ number: Int32, once ready: @escaping @Sendable (Running) async throws -> Void) -> Key {
            Key(after: "", signal: number, once: ready)
        }
        static func closeTerminal(after: String) -> Key { Key(after: after, closesTerminal: true) }
        static func closeTerminal(once ready: @escaping @Sendable (Running) async throws -> Void) -> Key {
            Key(after: "", once: ready, closesTerminal: true)
        }
    }

    /// `size` is the terminal's lines and columns (none set: programs take it as 24 × 80); `directory`, where the program starts.
    /// `leadsSession`: the program leads a session whose controlling terminal this is, as a shell in a terminal
    /// window does (started by `setsid --ctty --wait`, whose pid `Running` then holds): closing the terminal
    /// sends it SIGHUP from the kernel.
    static func run(
        _ target: String, arguments: [String], keys: [Key] = [], environment: [String: String] = [:],
        size: (lines: Int, columns: Int)? = nil, directory: URL? = nil, leadsSession: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Run {
        let executable = Rig.productsDirectory.appendingPathComponent(target)
        try #require(
            FileManager.default.isExecutableFile(atPath: executable.path), "build \(target) first",
            sourceLocation: sourceLocation)
        let (master, terminalPath) = try #require(openPseudoTerminal(), "no pseudo-terminal")
        // The reader stops when a byte comes on this pipe, so that the terminal can be closed while the program runs.
        var stopReading: [Int32] = [-1, -1]
        try #require(pipe(&stopReading) == 0)
        for end in stopReading { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let masterOpen = Atomic(true)
        defer {
            if masterOpen.load(ordering: .acquiring) { close(master) }
            for end in stopReading { close(end) }
        }
        let terminal = open(terminalPath, O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(terminal >= 0)
        var terminalClosed = false
        defer { if !terminalClosed { close(terminal) } }
        var before = termios()
        tcgetattr(terminal, &before)
        if let size {
            var window = winsize(ws_row: UInt16(size.lines), ws_col: UInt16(size.columns), ws_xpixel: 0, ws_ypixel: 0)
            _ = ioctl(terminal, UInt(TIOCSWINSZ), &window)
        }

        let handle = FileHandle(fileDescriptor: terminal, closeOnDealloc: false)
        var process =
            leadsSession
            ? ChildProcess(URL(fileURLWithPath: "/usr/bin/setsid"), ["--ctty", "--wait", executable.path] + arguments)
            : ChildProcess(executable, arguments)
        process.input = .handle(handle)
        process.output = .handle(handle)
        process.errors = .handle(handle)
        process.environment = environment
        process.directory = directory
        let output = Mutex("")
        let drawn = Changes()
        let readerDone = Atomic(false)
        // Read the screen as it is drawn, or the child would block on a full
        // terminal buffer, until nothing holds the terminal side any more: the
        // read then fails (EIO on Linux), after what was left to read.
        let stopSignal = stopReading[0]
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            var decoder = ScreenDecoder()
            while true {
                var ready = [pollfd(fd: master, events: Int16(POLLIN), revents: 0), pollfd(fd: stopSignal, events: Int16(POLLIN), revents: 0)]
                if poll(&ready, 2, -1) < 0 { if errno == EINTR { continue } else { break } }
                if ready[1].revents != 0 { break }
                let count = read(master, &buffer, buffer.count)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                let text = decoder.text(of: buffer[..<count])
                output.withLock { $0 += text }
                drawn.notify()
            }
            let rest = decoder.rest()
            output.withLock { $0 += rest }
            readerDone.store(true, ordering: .releasing)
            drawn.notify()
        }
        reader.start()

        let child = try process.launch()
        // The child holds the terminal side now, and whatever it starts inherits it: once they are gone, so is the screen.
        close(terminal)
        terminalClosed = true
        // A run that hangs is ended by the watchdog, and fails below rather than hanging the suite. It counts
        // what the program's tree runs, and the stretches in which none of its threads could run, never its
        // waits for a processor: at load 40 a minute of wall time had run out on programs that were only
        // starved. It judges how long the program takes to end after its last key. Until then the program
        // waits for this process (its wait for a key is a stretch blocked, which counts), whose turns came
        // after tens of seconds with every suite running in it, and each wait for a key has a hang guard of
        // its own: meanwhile the watchdog only keeps a test that is stuck from hanging the suite.
        let watchdog = Watchdog(limit: Self.keysGuard)
        async let finished = child.finished(watchdog: watchdog)
        // Also when a key fails, before the end is awaited on the way out.
        defer { watchdog.restart(limit: Self.hangGuard) }
        for key in keys {
            if let once = key.once {
                do {
                    try await once(Running(pid: child.pid, terminal: master))
                } catch {
                    // What the program drew says where it was when the key's wait gave up.
                    throw TestFailure("\(error); the screen so far: \(output.withLock { $0.suffix(900) })")
                }
            } else {
                // Until the words are drawn, or the program has ended without them.
                try? await Self.whileItRuns(child.pid) {
                    try await drawn.wait("the screen to show '\(key.after)'") {
                        output.withLock { $0.contains(key.after) } || readerDone.load(ordering: .acquiring)
                    }
                }
                let shown = output.withLock { $0.contains(key.after) }
                #expect(shown, "the screen never showed '\(key.after)'", sourceLocation: sourceLocation)
            }
            if key.closesTerminal {
                // Nothing may still read it: a read under way keeps the terminal open after `close`.
                _ = write(stopReading[1], "x", 1)
                try? await drawn.wait("the screen's reader to stop") { readerDone.load(ordering: .acquiring) }
                close(master)
                masterOpen.store(false, ordering: .releasing)
            } else if let text = key.send {
                _ = text.withCString { write(master, $0, strlen($0)) }
            } else if let signal = key.signal {
                child.send(signal)
            }
        }
        watchdog.restart(limit: Self.hangGuard)
        let end = await finished
        #expect(end.stoppedAfter == nil, "the program did not end by itself", sourceLocation: sourceLocation)
        try? await drawn.wait("the screen read to its end") { readerDone.load(ordering: .acquiring) }
        let drained = readerDone.load(ordering: .acquiring)
        #expect(drained, "the screen was still being read after the program ended", sourceLocation: sourceLocation)

        var after = termios()
        // The controlling side reads the terminal side's modes (Linux), which only the child held by now.
        let stillOpen = masterOpen.load(ordering: .acquiring)
        if stillOpen { tcgetattr(master, &after) }
        let text = output.withLock { $0 }
        var report: [String: Any]?
        if let start = text.firstIndex(of: "{"), let end = text.lastIndex(of: "}") {
            let json = text[start...end].replacingOccurrences(of: "\r\n", with: "\n")
            report = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        }
        return Run(
            status: end.signal.map { 128 + $0 } ?? end.status, signal: end.signal,
            restored: stillOpen && after.c_lflag == before.c_lflag, output: text, report: report)
    }

    /// Waits by `wait`, whose hang guard is a minute of wall time; when that runs out, what the program `pid` ran
    /// meanwhile judges it: a program that ended, or whose tree used no processor time in that minute (as its
    /// `Watchdog` counts it), is stuck, and the wait fails; one that ran is waited for again: a program is as
    /// slow as the machine is busy, and a learner's terminal has no deadline for it (docs/reliability.md). A
    /// program that runs for ever without what is waited for is ended by the run's watchdog (`keysGuard`).
    static func whileItRuns(_ pid: pid_t, _ wait: () async throws -> Void) async throws {
        let processorTime = Watchdog.Meter.host.processorTime
        var ran = processorTime(pid)
        while true {
            do {
                try await wait()
                return
            } catch {
                let now = processorTime(pid)
                guard isAlive(pid), now != ran else { throw error }
                ran = now
            }
        }
    }

    /// How long a program may take to end after its last key: processor time, or time with every thread blocked.
    static let hangGuard = Duration.seconds(60)
    /// How long the keys may take, each waited for under a hang guard of its own.
    static let keysGuard = Duration.seconds(300)

    /// A new pseudo-terminal: the controlling side's descriptor and the path of
    /// the terminal side. Glibc's module does not export `posix_openpt` and
    /// friends (they hide behind _XOPEN_SOURCE), so they are looked up by name.
    private static func openPseudoTerminal() -> (master: Int32, terminalPath: String)? {
        typealias OpenMaster = @convention(c) (Int32) -> Int32
        typealias OnMaster = @convention(c) (Int32) -> Int32
        typealias TerminalName = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        func function<F>(_ name: String, _: F.Type) -> F? {
            dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: F.self) }
        }
        guard let openMaster = function("posix_openpt", OpenMaster.self),
            let grant = function("grantpt", OnMaster.self), let unlock = function("unlockpt", OnMaster.self),
            let name = function("ptsname", TerminalName.self)
        else { return nil }
        // Closed on exec: a child another test starts meanwhile (a compiler, a step) inherited the descriptors of
        // the terminals open then, and a terminal whose controlling side it holds is never hung up when closed here.
        let master = openMaster(O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard master >= 0, grant(master) == 0, unlock(master) == 0, let path = name(master) else {
            if master >= 0 { close(master) }
            return nil
        }
        return (master, String(cString: path))
    }
}

extension Trait where Self == ConditionTrait {
    /// For a test that plays a program on a pseudo-terminal: left out of `.ci/run`'s Thread Sanitizer leg, as the
    /// suites that only launch executables are. There every program is TSan-built, and these runs failed that leg
    /// where the first leg never did: a SIGTERM to step 9 held for a minute, and four programs at once that did not
    /// end after `q` or a signal (round 4). The first leg plays them on the build a learner runs.
    static var onATerminal: Self {
        .disabled(if: ThreadSanitizer.isOn, "a program on a pseudo-terminal: the first leg of .ci/run plays it")
    }
}
