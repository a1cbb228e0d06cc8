import HostOS
import Synchronization

/// What a lesson executable puts right when a signal ends it — Ctrl-C
/// (SIGINT), Ctrl-\ (SIGQUIT), SIGTERM, or SIGHUP when its terminal goes: the
/// terminal's modes (step 9's raw keyboard), the cursor and the colours (the
/// live screen hides one and sets the other), and its scratch files.
///
/// SIGQUIT ends the run like the others. Left to the Swift runtime, it would
/// print a backtrace and let the run carry on, its story stalled for the
/// seconds that took: a person who presses Ctrl-\ wants out.
///
/// A signal handler may only call `SignalSafe`'s functions (`tcsetattr`,
/// `write`, `unlink`, `_exit`) and can reach only globals: everything it needs
/// is prepared here beforehand, as C strings.
public enum ExitCleanup {
    /// Handlers for the four signals, installed once; each exits with 128 + the signal's number.
    public static func install() {
        guard !cleanup.installed else { return }
        cleanup.installed = true
        // A global's first use runs its initializer, which a signal handler must not: these are made now.
        _ = (wayOut.load(ordering: .relaxed), modesSaved.load(ordering: .relaxed))
        _ = (HostDescriptor.standardInput, HostDescriptor.standardOutput)
        for number in [HostSignals.interrupt, HostSignals.quit, HostSignals.terminate, HostSignals.hangUp] {
            // A signal handler: only `SignalSafe`'s calls, on the globals prepared above.
            HostSignals.handle(number) { received in
                runCleanup()
                SignalSafe.exit(128 + received)
            }
        }
    }

    /// For a program whose signals `ChildProcess.endChildrenOnSignals` handles, which ends the children and
    /// then runs `runNow()`: `install()` leaves that handling in place. Replaced by these handlers, Ctrl-C
    /// in `lessons watch`'s raw keyboard mode ended `lessons` alone, its build and workbench left running.
    static func signalsHandledElsewhere() {
        cleanup.installed = true
    }

    /// Text written to standard output on the way out (nil: none), when it is a terminal.
    public static func restoreScreen(with text: String?) {
        let old = cleanup.screenReset
        cleanup.screenReset = text.map(SignalSafe.prepare)
        SignalSafe.discard(old)
    }

    /// Terminal modes to put back on standard input on the way out (nil: none).
    static func restoreModes(_ modes: TerminalModes?) {
        cleanup.modes = modes
        modesSaved.store(modes != nil, ordering: .sequentiallyConsistent)
    }

    /// Whether a way out (a signal's, or `runNow()`) has begun. It may have looked for modes to put back before
    /// they were saved: a program that changes them after saving them, and finds this true, puts them back.
    static var hasBegun: Bool {
        wayOut.load(ordering: .sequentiallyConsistent)
    }

    /// A file to delete on the way out.
    public static func removeOnExit(_ path: String) {
        guard cleanup.files.count < ExitCleanup.maxFiles else { return }
        cleanup.files.append(SignalSafe.prepare(path))
    }

    /// What the handler would do, done now (for a normal way out).
    public static func runNow() {
        runCleanup()
    }

    static let maxFiles = 16
}

private struct Cleanup {
    var installed = false
    var modes: TerminalModes?
    var screenReset: UnsafeMutablePointer<CChar>?
    var files: [UnsafeMutablePointer<CChar>?] = []

    init() {
        files.reserveCapacity(ExitCleanup.maxFiles)
    }
}

/// Written on the main thread while the run is set up, only read afterwards
/// (and by the signal handlers): a plain global, the only thing a handler can reach.
nonisolated(unsafe) private var cleanup = Cleanup()

/// Set first by a way out; `modesSaved`, once `cleanup.modes` holds the modes to put back. In one order or the
/// other, the way out sees the modes saved or raw mode's entry sees the way out begun (`RawTerminal.enter`): a
/// Ctrl-C typed as the screen comes up, while another thread enters raw mode, cannot leave the terminal raw.
private let wayOut = Atomic<Bool>(false)
private let modesSaved = Atomic<Bool>(false)

/// Runs in a signal handler: only `SignalSafe`'s calls, on what `cleanup` holds.
private func runCleanup() {
    wayOut.store(true, ordering: .sequentiallyConsistent)
    if modesSaved.load(ordering: .sequentiallyConsistent), let modes = cleanup.modes {
        SignalSafe.setModes(modes, on: HostDescriptor.standardInput)
    }
    if let reset = cleanup.screenReset, SignalSafe.isTerminal(HostDescriptor.standardOutput) {
        SignalSafe.write(reset, to: HostDescriptor.standardOutput)
    }
    for case let file? in cleanup.files { SignalSafe.remove(file) }
}
