import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The files an app reads from its caches folder, seen from outside the way a
/// file-system monitor sees them (Linux's inotify): every file opened and
/// closed again without a write is one read. The harness chooses the folder,
/// so it can watch it without the app's help.
///
/// `reads` is nil when the watch could not follow the folder for the whole
/// run: there was no folder when the app launched, it was deleted or moved, or
/// the kernel's event queue overflowed. Two threads reading one file at the
/// same instant count once (the kernel merges identical events in a row).
final class DiskReadWatch {
    private let descriptor: Int32
    private let folder: URL
    /// The folder's device and inode when the watch began.
    private var identity: (device: UInt64, inode: UInt64)?
    private var watching = false
    private var lost = false
    private var count = 0

    /// Starts watching `folder` if it exists now.
    init(folder: URL) {
        self.folder = folder
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return }
        identity = Self.identity(of: folder)
        // Opens as well as closes: the kernel merges an event identical to the
        // one before it, and two reads of one file alternate open and close.
        let events = IN_OPEN | IN_CLOSE_NOWRITE | IN_DELETE_SELF | IN_MOVE_SELF
        watching = inotify_add_watch(descriptor, folder.path, UInt32(events)) >= 0
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The reads so far, or nil if some may have been missed.
    var reads: Int? {
        drain()
        // The kernel says a folder went only once nothing holds it any more: ask the path too.
        if let identity, Self.identity(of: folder).map({ $0 != identity }) ?? true { lost = true }
        return watching && !lost ? count : nil
    }

    private static func identity(of folder: URL) -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard lstat(folder.path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }

    /// Takes what the kernel has queued; called often enough that its queue
    /// (16,384 events by default) does not overflow.
    func drain() {
        guard watching else { return }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let length = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard length > 0 else { return }
            var offset = 0
            while offset < length {
                let event = buffer.withUnsafeBytes {
                    $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                }
                let mask = event.mask
                if mask & UInt32(IN_Q_OVERFLOW | IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 { lost = true }
                // A file in the folder (it has a name; the folder itself has none), closed unwritten.
                if mask & UInt32(IN_CLOSE_NOWRITE) != 0 && mask & UInt32(IN_ISDIR) == 0 && event.len > 0 { count += 1 }
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
            }
        }
    }
}
