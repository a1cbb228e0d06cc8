import Foundation
import LessonChecks
import LessonKit
import Synchronization
import TerminalKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A `swift` for the PATH of a `lessons` run in a test: `swift build` runs
/// `build` (a shell script's lines) and then, if `workbench` is given, leaves
/// a workbench that runs it. No compiler runs: what is tested is what
/// `lessons` does around the build and the workbench, in a second.
enum SwiftStandIn {
    /// The PATH with the stand-in first; its files go in `folder`.
    static func path(in folder: URL, build: String, workbench: String? = nil) throws -> String {
        let bin = folder.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let products = "\(WorkbenchLayout.package)/.build/debug"
        var script = "#!/bin/sh\n\(describesTheWorkbench)\n\(build)\n"
        if let workbench {
            // Only the ordinary build leaves it; a Thread Sanitizer build fails at once.
            script += """
                case "$*" in *--scratch-path*) exit 1;; esac
                mkdir -p \(products)
                cat > \(products)/Workbench <<'END'
                #!/bin/sh
                \(workbench)
                END
                chmod +x \(products)/Workbench

                """
        }
        let swift = bin.appendingPathComponent("swift")
        try script.write(to: swift, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift.path)
        return bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    }

    /// `swift package describe --type json`, answered as the workbench's own manifest would be: the check asks it
    /// which executable to play.
    static let describesTheWorkbench = """
        case "$*" in *describe*) echo '{"products":[{"name":"Workbench","type":{"executable":null}}]}'; exit 0;; esac
        """

    /// A copy of the exercise folders whose workbench has a manifest (which the stand-in never reads).
    static func sandbox() throws -> URL {
        let root = try ExerciseCommandTests.sandbox()
        try "// read by no build here\n".write(
            to: root.appendingPathComponent(WorkbenchLayout.package).appendingPathComponent("Package.swift"),
            atomically: true, encoding: .utf8)
        return root
    }
}

/// `lessons watch` and `lessons check` on a terminal (watch's keyboard in raw
/// mode), ended by Ctrl-C or by their terminal going (SIGHUP) while the
/// workbench builds or plays: nothing they started is left running, their
/// scratch folders go, and the terminal is as it was. The stand-in build, or
/// the workbench it leaves, says its pid on an `Announcements` FIFO and runs
/// for ever, after starting a process in a session of its own that ignores
/// the signals, as a learner's code may.
@Suite struct WatchSignalTests {
    enum Phase: String, CaseIterable, CustomTestStringConvertible {
        case building, playing
        var testDescription: String { rawValue }
    }

    /// Starts a process in a session of its own that says its pid once it ignores the ending signals
    /// (`sleep` keeps the pid and the ignoring), says its own, and waits.
    static func leavingAProcessBehind(_ announcements: Announcements, saying line: String = "") -> String {
        #"""
        setsid sh -c "trap '' TERM INT HUP; echo \$\$ > '\#(announcements.path)'; exec sleep 300" &
        echo $$ > '\#(announcements.path)'
        \#(line)
        exec sleep 300
        """#
    }

    /// Which thread takes the signal varies from run to run, and decided whether the handler that ended
    /// nothing ran (3 runs of 4 before the fix): each command is ended twice.
    @Test(.onATerminal, arguments: [SIGINT, SIGHUP], Phase.allCases)
    func endingTheWatchOrTheCheckLeavesNothingRunningAndTheTerminalAsItWas(signal: Int32, phase: Phase) async throws {
        for command in ["watch", "watch", "check"] {
            let root = try SwiftStandIn.sandbox()
            let folder = try ScratchFolder.make("signal-\(command)")
            let temporary = try ScratchFolder.make("signal-tmp")
            defer {
                try? FileManager.default.removeItem(at: root)
                for made in [folder, temporary] { ScratchFolder.remove(made) }
            }
            let announcements = try Announcements(in: folder)
            defer { announcements.stop() }
            let forEver = Self.leavingAProcessBehind(announcements, saying: "echo '  playing standard: for ever'")
            let path =
                phase == .building
                ? try SwiftStandIn.path(in: folder, build: forEver)
                : try SwiftStandIn.path(in: folder, build: "", workbench: forEver)
            let run = try await PseudoTerminal.run(
                "lessons", arguments: [command, "--root", root.path],
                keys: [
                    .signal(signal) { _ in
                        // The process left behind, then the one that left it: both running before the signal.
                        _ = try await announcements.line(2, "the \(phase) to start")
                    }
                ],
                environment: ["PATH": path, "TMPDIR": temporary.path], size: (24, 80))
            let started = try await announcements.lines().compactMap { pid_t($0) }
            defer { for pid in started where isAlive(pid) { kill(pid, SIGKILL) } }

            #expect(run.status == 128 + signal, "\(command): \(run.output.suffix(600))")
            #expect(started.count >= 2)
            #expect(started.allSatisfy { !isAlive($0) }, "\(command) left running: \(started.filter(isAlive))")
            #expect(run.restored, "\(command): the terminal echoes and edits lines again")
            let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
            #expect(left == [], "\(command) left scratch folders")
            if phase == .playing { #expect(run.output.contains("playing standard: for ever")) }
        }
    }

    /// Blocks until the child `pid` of this process is stopped (or has ended), leaving its status to be
    /// collected as before.
    static func stopped(_ pid: pid_t) async -> Bool {
        await Rig.onThread {
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WSTOPPED | WEXITED | WNOWAIT) == -1 && errno == EINTR {}
            return info.si_code == CLD_STOPPED
        }
    }

    /// Waits until the terminal whose controlling side is `terminal` has line editing off (the program's raw
    /// mode), checking every 10 ms; false if it has not after 30 s.
    static func raw(_ terminal: Int32) async -> Bool {
        await lineEditing(of: terminal, on: false)
    }

    /// Waits until the terminal has line editing on again (the program put its modes back before a stop).
    static func cooked(_ terminal: Int32) async -> Bool {
        await lineEditing(of: terminal, on: true)
    }

    private static func lineEditing(of terminal: Int32, on: Bool) async -> Bool {
        await Rig.onThread {
            let deadline = ContinuousClock.now + .seconds(30)
            var modes = termios()
            while ContinuousClock.now < deadline {
                tcgetattr(terminal, &modes)
                if (modes.c_lflag & tcflag_t(ICANON) != 0) == on { return true }
                usleep(10_000)
            }
            return false
        }
    }

    /// Ctrl-Z, then `fg`: the shell takes the terminal back for its prompt while
    /// the watch is stopped (line editing and echo, as bash does), and gives it
    /// back to the watch unchanged; the watch's keys work without Enter again.
    @Test(.onATerminal) func afterCtrlZAndFgTheKeysWorkWithoutEnter() async throws {
        let root = try ExerciseCommandTests.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let keyLine = WorkbenchWatch.keyLine(solved: false)
        let run = try await PseudoTerminal.run(
            "lessons", arguments: ["watch", "--root", root.path],
            keys: [
                .signal(SIGTSTP, after: keyLine),
                .signal(SIGCONT) { program in
                    let stopped = await Self.stopped(program.pid)
                    #expect(stopped, "Ctrl-Z did not stop the watch")
                    var modes = termios()
                    tcgetattr(program.terminal, &modes)
                    modes.c_lflag |= tcflag_t(ICANON | ECHO)
                    tcsetattr(program.terminal, TCSANOW, &modes)
                },
                // Typed once the watch has taken its terminal back (as a learner types once the screen is back):
                // in raw mode `q` alone quits; with line editing still on it would wait for Enter.
                PseudoTerminal.Key(after: "", send: "q", once: { program in
                    let raw = await Self.raw(program.terminal)
                    #expect(raw, "after fg the watch never made its terminal raw again")
                }),
            ], size: (24, 80))
        #expect(run.status == 1, "no verdict: not solved")
        #expect(run.restored, "the terminal echoes and edits lines again")
    }

    /// What a learner's code prints reaches the terminal made printable: the
    /// alternate screen, a hidden cursor, a window title and a background
    /// colour are shown, not obeyed, and the verdict is read on the screen it
    /// was typed on. (Exercises 8–10 play the learner's code in the workbench
    /// `lessons check` runs, whose output it passes on.)
    @Test(.onATerminal) func whatTheLearnersCodePrintsCannotChangeTheTerminal() async throws {
        let root = try SwiftStandIn.sandbox()
        let folder = try ScratchFolder.make("escapes")
        defer {
            try? FileManager.default.removeItem(at: root)
            ScratchFolder.remove(folder)
        }
        let sequences = ["\u{1B}[?1049h", "\u{1B}[?25l", "\u{1B}]0;mine\u{07}", "\u{1B}[41m"]
        let printf = #"printf '\033[?1049h\033[?25l\033]0;mine\007\033[41mred\n'"#
        let path = try SwiftStandIn.path(in: folder, build: "", workbench: "\(printf)\n\(printf) >&2\nexit 1")
        let run = try await PseudoTerminal.run(
            "lessons", arguments: ["check", "--root", root.path], environment: ["PATH": path], size: (24, 80))
        #expect(run.status == 1)
        for sequence in sequences {
            #expect(!run.output.contains(sequence), "obeyed: \(TerminalText.printable(sequence))")
        }
        // Shown, on standard output and standard error.
        let shown = run.output.components(separatedBy: #"\u{1B}[?1049h\u{1B}[?25l\u{1B}]0;mine\u{7}\u{1B}[41mred"#)
        #expect(shown.count == 3, "\(run.output.suffix(800))")
        #expect(run.restored)
    }
}

/// Ctrl-Z in `lessons watch`, for longer than a check's watchdog allows, then
/// `fg`: the workbench stops with the watch (it is in a process group of its
/// own, which the terminal's Ctrl-Z never reaches) and goes on with it, and
/// the time stopped counts against no watchdog: no hang is reported.
@Suite struct CtrlZStopsTheChildrenTests {
    /// The workbench's first state letter in /proc ("T" stopped, "S" asleep), nil once it is gone.
    static func state(_ pid: pid_t) -> Character? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        return stat[stat.index(close, offsetBy: 2)]
    }

    /// Ctrl-Z for lessons, sent by the workbench it runs (its parent): one SIGTSTP, as a terminal sends one to
    /// its foreground group (lessons alone), at once. Sent by the test, it came when the test process's threads
    /// had a turn: with every suite running, after the check's watchdog had given the workbench up (29 s).
    static let controlZ = "kill -TSTP $PPID"

    /// A stand-in workbench under `lessons watch` that says its pid, presses Ctrl-Z itself, then waits for the
    /// test's word (`go`) and ends with no verdict; `takingNoStop`: it ignores SIGTSTP, as a child whose process
    /// group is orphaned does.
    struct SelfStoppingWorkbench {
        let announcements: Announcements
        /// Once this file is made, the workbench ends.
        let go: String
        fileprivate let root: URL
        fileprivate let path: String

        /// `lessons watch` on a terminal, with this workbench, given `keys`.
        func watch(keys: [PseudoTerminal.Key]) async throws -> PseudoTerminal.Run {
            try await PseudoTerminal.run(
                "lessons", arguments: ["watch", "--root", root.path], keys: keys, environment: ["PATH": path],
                size: (24, 80))
        }
    }

    /// Runs `body` with a `SelfStoppingWorkbench` whose files are in a scratch folder named `name`, removed after.
    static func withSelfStoppingWorkbench(
        _ name: String, takingNoStop: Bool = false, _ body: (SelfStoppingWorkbench) async throws -> Void
    ) async throws {
        let root = try SwiftStandIn.sandbox()
        let folder = try ScratchFolder.make(name)
        defer {
            try? FileManager.default.removeItem(at: root)
            ScratchFolder.remove(folder)
        }
        let announcements = try Announcements(in: folder)
        defer { announcements.stop() }
        let go = folder.appendingPathComponent("go").path
        let workbench = """
            \(takingNoStop ? "trap '' TSTP" : "")
            echo $$ > '\(announcements.path)'
            \(controlZ)
            while [ ! -e '\(go)' ]; do sleep 0.1; done
            exit 1
            """
        let path = try SwiftStandIn.path(in: folder, build: "", workbench: workbench)
        try await body(SelfStoppingWorkbench(announcements: announcements, go: go, root: root, path: path))
    }

    @Test func aStoppedWatchStopsItsWorkbenchAndCountsNoHang() async throws {
        try await Self.withSelfStoppingWorkbench("stopped-watch") { workbench in
            let pids = Mutex<[pid_t]>([])
            let run = try await workbench.watch(keys: [
                PseudoTerminal.Key(after: "") { program in
                    let pid = try await workbench.announcements.line(1, "the workbench to start")
                    pids.withLock { $0 = pid_t(pid).map { [$0] } ?? [] }
                    #expect(await WatchSignalTests.stopped(program.pid), "Ctrl-Z did not stop the watch")
                    let stopped = try #require(pids.withLock { $0.first })
                    #expect(Self.state(stopped) == "T", "the workbench ran on while the watch was stopped")
                    // Stopped longer than the check's watchdog gives a workbench that has not started a scenario.
                    try await Task.sleep(for: CheckWatch.hangLimit + .seconds(2))
                    // Given before `fg`, so that nothing after it waits for this process's turn.
                    #expect(FileManager.default.createFile(atPath: workbench.go, contents: nil))
                    kill(program.pid, SIGCONT)
                },
                .type("q", after: "First check"),
            ])
            defer { for pid in pids.withLock({ $0 }) where isAlive(pid) { kill(pid, SIGKILL) } }
            #expect(run.status == 1, "no verdict: not solved")
            #expect(!run.output.contains("was stopped after"), "\(run.output.suffix(900))")
            #expect(run.output.contains("the workbench ended (status 1)"), "\(run.output.suffix(900))")
            #expect(run.restored)
        }
    }

    /// Ctrl-Z pressed twice (the second while the watch still waits for its workbench to stop), `kill -TSTP`
    /// once it is stopped, then one `fg`: one stop. Before, the second SIGTSTP was heard after the continue as a
    /// stop of its own: the watch and its workbench stopped again at once, the terminal left for the shell.
    @Test func aSecondStopBeforeFgIsPartOfTheFirst() async throws {
        // Takes no SIGTSTP: the watch waits 2 s for it to stop, then stops it. The second Ctrl-Z comes in those 2 s.
        try await Self.withSelfStoppingWorkbench("stopped-twice", takingNoStop: true) { workbench in
            let pid = Mutex<pid_t?>(nil)
            let run = try await workbench.watch(keys: [
                PseudoTerminal.Key(after: "") { program in
                    let said = try await workbench.announcements.line(1, "the workbench to start")
                    pid.withLock { $0 = pid_t(said) }
                    // The terminal given back for the shell: the stop is under way, waiting for the workbench.
                    #expect(await WatchSignalTests.cooked(program.terminal), "Ctrl-Z did not give the terminal back")
                    kill(program.pid, SIGTSTP)
                },
                PseudoTerminal.Key(after: "") { program in
                    #expect(await WatchSignalTests.stopped(program.pid), "Ctrl-Z did not stop the watch")
                    let stopped = try #require(pid.withLock { $0 })
                    #expect(Self.state(stopped) == "T", "the workbench ran on while the watch was stopped")
                    kill(program.pid, SIGTSTP)
                    #expect(FileManager.default.createFile(atPath: workbench.go, contents: nil))
                    // `fg`: the shell gives the terminal back as it was when the job stopped, and continues it.
                    kill(program.pid, SIGCONT)
                    #expect(await WatchSignalTests.raw(program.terminal), "after fg the watch was not raw again")
                },
                // Shown only if the watch and its workbench both run after fg; q then works without Enter.
                .type("q", after: "the workbench ended (status 1)"),
            ])
            defer { if let stopped = pid.withLock({ $0 }), isAlive(stopped) { kill(stopped, SIGKILL) } }
            #expect(run.status == 1, "no verdict: not solved")
            #expect(!run.output.contains("was stopped after"), "\(run.output.suffix(900))")
            #expect(run.restored)
        }
    }
}
