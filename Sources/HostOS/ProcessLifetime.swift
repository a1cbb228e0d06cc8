import Glibc

/// How this process ends, and what it collects of the processes below it.
extension HostProcess {
    /// Runs `handler` when the process ends by `exit` or by returning from `main` (`atexit`).
    public static func atExit(_ handler: @convention(c) () -> Void) {
        atexit(handler)
    }

    /// Makes this process adopt the orphans of everything below it (Linux's "child subreaper",
    /// `prctl(PR_SET_CHILD_SUBREAPER)`): a process whose parent ends is reparented here, not to PID 1. False if
    /// the kernel refused.
    public static func adoptOrphans() -> Bool {
        // `prctl` is variadic, which Swift does not import; its integer arguments pass the same way through a fixed
        // signature.
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "prctl") else { return false }
        return unsafeBitCast(symbol, to: Prctl.self)(setChildSubreaper, 1, 0, 0, 0) == 0
    }

    /// `PR_SET_CHILD_SUBREAPER` (linux/prctl.h), which the Glibc module leaves out.
    private static let setChildSubreaper: Int32 = 36

    /// Waits for this process's child `pid` to end and collects its end (`waitpid`), so that it leaves no zombie;
    /// returns at once if it is no child of this process.
    public static func collectEnd(of pid: Int32) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    }
}
