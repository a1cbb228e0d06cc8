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
        guard let tasks = opendir("/proc/self/task") else { return false }
        defer { closedir(tasks) }
        // The caller reads itself running: another thread can run when a second one does.
        var canRun = 0
        while let entry = readdir(tasks) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let tid = Int32(name), let state = state(ofThread: tid), state == "R" || state == "D" else { continue }
            canRun += 1
            if canRun > 1 { return true }
        }
        return false
    }

    /// The state letter of a thread of this process, nil if it could not be read (it has ended).
    private static func state(ofThread tid: Int32) -> Character? {
        let descriptor = open("/proc/self/task/\(tid)/stat", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return nil }
        // "TID (name) S ...": the name may hold spaces and parentheses, so the state follows the last ')'.
        let line = buffer[..<count]
        guard let close = line.lastIndex(of: UInt8(ascii: ")")), close + 2 < count else { return nil }
        return Character(Unicode.Scalar(line[close + 2]))
    }
}
