import Glibc

/// A process or a thread as its `/proc/…/stat` line tells it, read at one
/// moment: who started it, its state, and the processor time it has had.
public struct ProcessStat: Sendable {
    /// The process that started it (or adopted it).
    public let parent: Int32
    /// The kernel's state letter: `R` running or waiting for a processor, `D` waiting on the disk, `S` asleep,
    /// `T`/`t` stopped, `Z` ended (a zombie its parent has not collected), …
    public let state: Character
    /// The processor time it has run, with that of its ended and collected children (utime, stime, cutime and
    /// cstime): a process tree's sum stays whole when a parent in it collects a child.
    public let processorTime: Duration

    /// `/proc/PID/stat`, nil when there is no such process (it ended and was collected).
    public static func of(_ pid: Int32) -> ProcessStat? {
        read("/proc/\(pid)/stat")
    }

    /// How many threads of `pid` can run (`canRun`, from each `/proc/PID/task/TID/stat`), counted up to `limit`.
    public static func threadsThatCanRun(in pid: Int32, upTo limit: Int = .max) -> Int {
        var count = 0
        for thread in threads(of: pid) where count < limit {
            if read("/proc/\(pid)/task/\(thread)/stat")?.canRun == true { count += 1 }
        }
        return count
    }

    /// The processes `pid`'s threads started that are still its children, from each thread's
    /// `/proc/PID/task/TID/children`: a look at one process, where the parent field means reading every process
    /// on the machine. Nil where the kernel keeps no such list (built without `CONFIG_PROC_CHILDREN`).
    public static func children(of pid: Int32) -> [Int32]? {
        guard kernelListsChildren else { return nil }
        var children: [Int32] = []
        for thread in threads(of: pid) {
            let descriptor = open("/proc/\(pid)/task/\(thread)/children", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            var list: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while case let count = Glibc.read(descriptor, &buffer, buffer.count), count > 0 {
                list += buffer[..<count]
            }
            children += list.split(separator: UInt8(ascii: " ")).compactMap { Int32(text($0)) }
        }
        return children
    }

    /// Whether this kernel lists a thread's children (this process's main thread's list is there).
    private static let kernelListsChildren = access("/proc/\(getpid())/task/\(getpid())/children", R_OK) == 0

    /// The ids of `pid`'s threads (`/proc/PID/task`), none once it is gone.
    private static func threads(of pid: Int32) -> [Int32] {
        guard let tasks = opendir("/proc/\(pid)/task") else { return [] }
        defer { closedir(tasks) }
        var threads: [Int32] = []
        while let entry = readdir(tasks) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let thread = Int32(name) { threads.append(thread) }
        }
        return threads
    }

    /// Whether it has ended (a zombie, or on its way out).
    public var hasEnded: Bool { state == "Z" || state == "X" }
    /// Whether SIGSTOP or SIGTSTP stopped it (or a debugger).
    public var isStopped: Bool { state == "T" || state == "t" }
    /// Running, waiting for a processor, or waiting on the disk: not blocked on anything of its own.
    public var canRun: Bool { state == "R" || state == "D" }

    /// How many clock ticks the kernel counts processor time in per second (`sysconf(_SC_CLK_TCK)`, 100 on Linux).
    private static let ticksPerSecond = Int64(max(sysconf(Int32(_SC_CLK_TCK)), 1))

    private static func read(_ path: String) -> ProcessStat? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = Glibc.read(descriptor, &buffer, buffer.count)
        guard count > 0 else { return nil }
        // "PID (name) STATE PPID …": the name may hold spaces and parentheses, so the fields follow the last ')'.
        let line = buffer[..<count]
        guard let close = line.lastIndex(of: UInt8(ascii: ")")) else { return nil }
        let fields = line[(close + 1)...].split(separator: UInt8(ascii: " "))
        // From the state (field 3): the parent is field 4, utime to cstime fields 14 to 17.
        guard fields.count > 14, let state = fields[0].first, let parent = Int32(text(fields[1])) else { return nil }
        let ticks = fields[11...14].reduce(Int64(0)) { $0 + (Int64(text($1)) ?? 0) }
        return ProcessStat(
            parent: parent, state: Character(Unicode.Scalar(state)),
            processorTime: .milliseconds(ticks * 1000 / ticksPerSecond))
    }

    private static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
}
