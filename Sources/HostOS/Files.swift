import Glibc

/// What the kernel says of files and folders.
public enum HostFiles {
    public enum Kind: Sendable {
        case regular, folder, fifo, device, other
    }

    /// What `path` is and how many bytes it holds, where links lead (`stat`).
    public static func status(of path: String) -> Result<(kind: Kind, bytes: Int), HostError> {
        var info = stat()
        guard stat(path, &info) == 0 else { return .failure(.last()) }
        let kind: Kind =
            switch info.st_mode & S_IFMT {
            case S_IFREG: .regular
            case S_IFDIR: .folder
            case S_IFIFO: .fifo
            case S_IFCHR, S_IFBLK: .device
            default: .other
            }
        return .success((kind, Int(info.st_size)))
    }

    /// Why this process may not read `path` (`access`), nil if it may.
    public static func whyUnreadable(_ path: String) -> HostError? {
        access(path, R_OK) == 0 ? nil : .last()
    }

    /// Removes the file `path` names, if it can (`unlink`).
    public static func remove(_ path: String) {
        unlink(path)
    }

    /// The device and inode of what `path` names, itself and not where a link points (`lstat`); nil if nothing is
    /// there.
    public static func identity(of path: String) -> (device: UInt64, inode: UInt64)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino))
    }
}

/// Linux's inotify on one folder: what happened to the folder and to the files in it, in the order the kernel
/// queued it. The kernel merges an event identical to the one just before it.
public final class FolderEvents {
    /// What happened, one bit each (inotify's mask).
    public struct Kind: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let opened = Kind(rawValue: UInt32(IN_OPEN))
        public static let closedUnwritten = Kind(rawValue: UInt32(IN_CLOSE_NOWRITE))
        public static let folderDeleted = Kind(rawValue: UInt32(IN_DELETE_SELF))
        public static let folderMoved = Kind(rawValue: UInt32(IN_MOVE_SELF))
        /// The kernel's queue overflowed: events were lost.
        public static let overflowed = Kind(rawValue: UInt32(IN_Q_OVERFLOW))
        /// The watch ended (the folder went, or the watch was removed).
        public static let watchEnded = Kind(rawValue: UInt32(IN_IGNORED))
        /// What happened to is a folder.
        public static let isFolder = Kind(rawValue: UInt32(IN_ISDIR))
    }

    public struct Event: Sendable {
        public let kind: Kind
        /// Whether the event names a file in the folder (the folder's own events have no name).
        public let namesAFile: Bool
    }

    private let descriptor: Int32
    /// Whether the kernel watches the folder: false if it could not (no folder there, no inotify).
    public let isWatching: Bool

    /// Starts watching `path` for `kinds` (the kernel always adds `overflowed` and `watchEnded`).
    public init(folder path: String, for kinds: Kind) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        isWatching = descriptor >= 0 && inotify_add_watch(descriptor, path, kinds.rawValue) >= 0
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Every event the kernel has queued, taken off its queue (16,384 events by default), without waiting.
    public func take() -> [Event] {
        guard isWatching else { return [] }
        var events: [Event] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let length = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard length > 0 else { return events }
            var offset = 0
            while offset < length {
                let event = buffer.withUnsafeBytes {
                    $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                }
                events.append(Event(kind: Kind(rawValue: event.mask), namesAFile: event.len > 0))
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
            }
        }
    }
}
