#if canImport(Glibc)
    import Glibc
#endif

/// What a lesson executable puts right when a signal ends it — Ctrl-C
/// (SIGINT), Ctrl-\ (SIGQUIT), SIGTERM, or SIGHUP when its terminal goes: the
/// terminal's modes (step 9's raw keyboard), the cursor and the colours (the
/// live screen hides one and sets the other), and its scratch files.
///
/// SIGQUIT ends the run like the others. Left to the Swift runtime, it would
/// print a backtrace and let the run carry on, its story stalled for the
/// seconds that took: a person who presses Ctrl-\ wants out.
///
/// A signal handler may only call async-signal-safe functions (`tcsetattr`,
/// `write`, `unlink`, `_exit`) and can reach only globals: everything it needs
/// is prepared here beforehand, as C strings.
public enum ExitCleanup {
    /// Handlers for the four signals, installed once; each exits with 128 + the signal's number.
    public static func install() {
        guard !cleanup.installed else { return }
        cleanup.installed = true
        for number in [SIGINT, SIGQUIT, SIGTERM, SIGHUP] {
            signal(number) { received in
                runCleanup()
                _exit(128 + received)
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
        cleanup.screenReset = text.map { strdup($0) }
        free(old)
    }

    /// Terminal modes to put back on standard input on the way out (nil: none).
    static func restoreModes(_ modes: termios?) {
        cleanup.modes = modes
    }

    /// A file to delete on the way out.
    public static func removeOnExit(_ path: String) {
        guard cleanup.files.count < ExitCleanup.maxFiles else { return }
        cleanup.files.append(strdup(path))
    }

    /// What the handler would do, done now (for a normal way out).
    public static func runNow() {
        runCleanup()
    }

    static let maxFiles = 16
}

private struct Cleanup {
    var installed = false
    var modes: termios?
    var screenReset: UnsafeMutablePointer<CChar>?
    var files: [UnsafeMutablePointer<CChar>?] = []

    init() {
        files.reserveCapacity(ExitCleanup.maxFiles)
    }
}

/// Written on the main thread while the run is set up, only read afterwards
/// (and by the signal handlers): a plain global, the only thing a handler can reach.
nonisolated(unsafe) private var cleanup = Cleanup()

private func runCleanup() {
    if var modes = cleanup.modes {
        _ = tcsetattr(STDIN_FILENO, TCSANOW, &modes)
    }
    if let reset = cleanup.screenReset, isatty(STDOUT_FILENO) == 1 {
        _ = write(STDOUT_FILENO, reset, strlen(reset))
    }
    for case let file? in cleanup.files { unlink(file) }
}
