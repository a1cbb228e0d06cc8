import Glibc

/// Signals sent to processes and their groups, ignored, or let through to a child.
extension HostSignals {
    /// Ctrl-C (SIGINT).
    public static let interrupt = SIGINT
    /// Ctrl-\ (SIGQUIT).
    public static let quit = SIGQUIT
    /// `kill`'s default (SIGTERM): end, please.
    public static let terminate = SIGTERM
    /// The terminal went (SIGHUP).
    public static let hangUp = SIGHUP
    /// Ctrl-Z (SIGTSTP): stop, please; a program can catch it.
    public static let terminalStop = SIGTSTP
    /// Stop, with no say in it (SIGSTOP).
    public static let stop = SIGSTOP
    /// Go on after a stop (SIGCONT).
    public static let continued = SIGCONT
    /// End, with no say in it (SIGKILL).
    public static let kill = SIGKILL
    /// Abort (SIGABRT): the Swift runtime answers it with a backtrace.
    public static let abort = SIGABRT

    /// Sends `number` to the process `pid` (`kill`).
    public static func send(_ number: Int32, to pid: Int32) {
        _ = Glibc.kill(pid, number)
    }

    /// Sends `number` to every process in the group `group` leads (`kill` with the group's id negated).
    public static func send(_ number: Int32, toGroup group: Int32) {
        _ = Glibc.kill(-group, number)
    }

    /// From now on `number` is ignored by the default handling (`signal(_, SIG_IGN)`); a dispatch source still
    /// hears it, and `exec` gives a child the default again only for signals that were caught, not ignored.
    public static func ignore(_ number: Int32) {
        signal(number, SIG_IGN)
    }

    /// Runs `body` with no signal blocked on the calling thread, then blocks again what was blocked: a child
    /// inherits the mask of the thread that starts it (`pthread_sigmask`).
    public static func withNoneBlocked<T>(_ body: () throws -> T) rethrows -> T {
        var none = sigset_t()
        var previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        return try body()
    }
}
