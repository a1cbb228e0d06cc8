import Glibc

/// Signals, by the names a learner reads in a crash.
public enum HostSignals {
    /// The name of a signal a crash or a kill ends a program with ("SIGSEGV"); nil for any other.
    public static func crashName(of number: Int32) -> String? {
        switch number {
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGABRT: "SIGABRT"
        case SIGILL: "SIGILL"
        case SIGTRAP: "SIGTRAP"
        case SIGKILL: "SIGKILL"
        default: nil
        }
    }

    /// Gives each of `numbers` its default action again (`signal(_, SIG_DFL)`), and lets it through on the
    /// calling thread: a program about to replace itself (`exec`) hands on its mask, and one of these already
    /// waiting then ends it at once.
    public static func resetToDefault(_ numbers: [Int32]) {
        for number in numbers { signal(number, SIG_DFL) }
        letThrough(numbers)
    }

    /// Unblocks `numbers` on the calling thread (`pthread_sigmask`); the threads it starts from now on inherit that.
    static func letThrough(_ numbers: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for number in numbers { sigaddset(&set, number) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}
