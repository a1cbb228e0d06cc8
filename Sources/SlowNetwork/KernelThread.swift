import Foundation

/// A thread as the Linux kernel sees it, read from `/proc`: whether it is
/// doing something right now.
///
/// A request's end is as far as the network can see. What the thread does
/// next (decode the bytes, write them to disk, hand them to the main queue)
/// is the app's, and only the kernel knows whether it is still at it: a
/// thread that runs, waits for a CPU ("R") or waits for the disk ("D") is
/// busy; one asleep ("S", as an idle worker parks) is not.
///
/// Only Linux has `/proc/thread-self`; elsewhere `current` is nil and nothing
/// is ever known to be busy.
struct KernelThread: Hashable, Sendable {
    /// The kernel's thread id (what `gettid()` returns; Glibc does not export it to Swift).
    let id: Int

    /// The calling thread, or nil where `/proc` does not say.
    static var current: KernelThread? {
        // "/proc/thread-self" links to "<process id>/task/<thread id>".
        guard let link = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self"),
            let last = link.split(separator: "/").last, let id = Int(last)
        else { return nil }
        return KernelThread(id: id)
    }

    /// Whether the thread is running or waiting for a CPU or the disk. A
    /// thread that has ended is not.
    var isBusy: Bool {
        // "<id> (<name>) <state> …": the name may hold spaces and parentheses,
        // so the state is the first field after the last ")".
        guard let stat = FileManager.default.contents(atPath: "/proc/self/task/\(id)/stat"),
            let nameEnd = stat.lastIndex(of: UInt8(ascii: ")")),
            let state = stat[(nameEnd + 1)...].first(where: { $0 != UInt8(ascii: " ") })
        else { return false }
        return state == UInt8(ascii: "R") || state == UInt8(ascii: "D")
    }
}
