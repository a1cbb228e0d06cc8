import Foundation

/// A run the story clock's hang guard stopped, played for a check: once its
/// report is handed over, the program asks the Swift runtime for the
/// backtrace of every thread (SIGABRT, on the thread that ends the run), so
/// the check can say which line of the app kept the story from moving on: a
/// block that sleeps for hours holds no main queue, so no watchdog from
/// outside would find it stuck.
public enum StuckRun {
    /// Set (to 1) in the environment by a check that reads the backtrace.
    public static let backtraceSetting = "LESSONS_BACKTRACE_WHEN_STUCK"

    static var isAsked: Bool { ProcessInfo.processInfo.environment[backtraceSetting] == "1" }

    /// Ends the program with the runtime's backtrace, when a check asked for it.
    /// `abort`, not `raise`: the run may end on a Dispatch thread, which blocks
    /// signals, and `abort` unblocks SIGABRT in its thread first.
    static func backtraceIfAsked() {
        guard isAsked else { return }
        abort()
    }
}
