import Glibc

/// How much of the processors this process has had, and whether its threads
/// could use more: what a hang guard needs to tell a hung program from one
/// the machine is too busy to run.
public enum ProcessorTime {
    /// The processor time every thread of this process has run so far (`CLOCK_PROCESS_CPUTIME_ID`): it stands
    /// still while the process waits for a processor, is stopped or is blocked.
    public static var ofThisProcess: Duration {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// Whether a thread of this process other than the caller is running, waiting for a processor (`R`) or
    /// waiting on the disk (`D`): the state letter of each `/proc/self/task/TID/stat`. False when every other
    /// thread sleeps on something (a lock, a condition, a semaphore, a timer) or none could be read.
    public static func anotherThreadCanRun() -> Bool {
        // The caller reads itself running: another thread can run when a second one does.
        ProcessStat.threadsThatCanRun(in: getpid(), upTo: 2) > 1
    }
}
