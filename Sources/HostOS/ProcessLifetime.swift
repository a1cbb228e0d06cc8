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

/// How a child of this process ended: its exit status, or the signal that ended it.
public struct ChildEnd: Equatable, Sendable {
    public let status: Int32
    public let signal: Int32?
}

extension HostProcess {
    /// How this process's child `pid` ended, read while leaving it to be collected by whoever waits for it
    /// (`waitid` with `WNOWAIT`); nil while it runs, or when it is no child of this process to wait for (collected
    /// already).
    public static func endOfChild(_ pid: Int32) -> ChildEnd? {
        var info = siginfo_t()
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT | WNOHANG) == 0 else { return nil }
        let child = info._sifields._sigchld
        // Still running: with WNOHANG, `waitid` answers with no child named.
        guard child.si_pid == pid else { return nil }
        switch Int(info.si_code) {
        case Int(CLD_EXITED): return ChildEnd(status: child.si_status, signal: nil)
        case Int(CLD_KILLED), Int(CLD_DUMPED): return ChildEnd(status: child.si_status, signal: child.si_status)
        default: return nil
        }
    }
}
