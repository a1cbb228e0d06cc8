import Glibc

/// The calling thread, as the kernel and the C library know it.
public enum HostThread {
    /// The calling thread's id (`pthread_self`): the same number for as long as the thread lives.
    public static var currentID: UInt { UInt(pthread_self()) }

    /// The calling thread's nice value, nil if it could not be read. `getpriority` for "this process" answers for the
    /// calling thread on Linux, where each thread has a nice value of its own.
    public static func niceValue() -> Int? {
        errno = 0
        let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        // -1 is a nice value too: only errno tells it from a failure.
        return nice == -1 && errno != 0 ? nil : Int(nice)
    }
}
