import Glibc

/// This process, and others by their id.
public enum HostProcess {
    /// This process's id (`getpid`).
    public static var id: Int32 { getpid() }

    /// Whether there is no process `pid` (`kill` with no signal answers ESRCH); another user's process is there.
    public static func isGone(_ pid: Int32) -> Bool {
        kill(pid, 0) == -1 && errno == ESRCH
    }

    /// The address of `symbol` in this program or the libraries it loaded (`dlsym`), nil if none defines it.
    public static func address(of symbol: String) -> UnsafeMutableRawPointer? {
        dlsym(nil, symbol)
    }

    /// Sets an environment variable of this process, which the processes it starts inherit.
    public static func setEnvironment(_ name: String, to value: String) {
        setenv(name, value, 1)
    }

    public static func removeFromEnvironment(_ name: String) {
        unsetenv(name)
    }

    /// Writes out what C's stdio still holds (`print` to a pipe is buffered), before the process is replaced.
    public static func flushStandardIO() {
        fflush(nil)
    }

    /// Runs `executable` in this process's place (`execv`), given `arguments` (the first is the program's name);
    /// returns only if it cannot, with why.
    public static func replace(with executable: String, arguments: [String]) -> HostError {
        var cArguments = arguments.map { strdup($0) } + [nil]
        execv(executable, &cArguments)
        return .last()
    }
}
