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

    /// Gives each of `numbers` its default action again (`signal(_, SIG_DFL)`).
    public static func resetToDefault(_ numbers: [Int32]) {
        for number in numbers { signal(number, SIG_DFL) }
    }
}
