import Glibc

/// What the kernel says of files and folders.
public enum HostFiles {
    public enum Kind: Sendable {
        case regular, folder, link, fifo, device, socket, other

        init(mode: mode_t) {
            self =
                switch mode & S_IFMT {
                case S_IFREG: .regular
                case S_IFDIR: .folder
                case S_IFLNK: .link
                case S_IFIFO: .fifo
                case S_IFCHR, S_IFBLK: .device
                case S_IFSOCK: .socket
                default: .other
                }
        }
    }

    /// What `path` is and how many bytes it holds, where links lead (`stat`).
    public static func status(of path: String) -> Result<(kind: Kind, bytes: Int), HostError> {
        var info = stat()
        guard stat(path, &info) == 0 else { return .failure(.last()) }
        return .success((Kind(mode: info.st_mode), Int(info.st_size)))
    }

    /// What `path` names, itself and not where a link points (`lstat`).
    public static func kind(of path: String) -> Result<Kind, HostError> {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .failure(.last()) }
        return .success(Kind(mode: info.st_mode))
    }

    /// Why this process may not read `path` (`access`), nil if it may.
    public static func whyUnreadable(_ path: String) -> HostError? {
        access(path, R_OK) == 0 ? nil : .last()
    }

    /// Why this process may not write `path`, or make a file in it if it is a folder (`access`), nil if it may.
    public static func whyUnwritable(_ path: String) -> HostError? {
        access(path, W_OK) == 0 ? nil : .last()
    }

    /// Why a write in place failed.
    public enum InPlaceFailure: Error {
        /// What is at the path now is not a regular file (it changed since it was checked).
        case notARegularFile
        case failed(HostError)
    }

    /// Writes `bytes` over the regular file at `path`, in place (its mode, owner and hard links kept), or into a new
    /// file there. Never follows a link, never waits on a FIFO; the room for every byte is reserved first, so a full
    /// disk leaves the old file whole.
    public static func writeInPlace(_ bytes: [UInt8], to path: String) -> InPlaceFailure? {
        // O_NOFOLLOW: a link is refused, not followed. O_NONBLOCK: a FIFO fails at once instead of waiting for a
        // reader; on a regular file it changes nothing.
        var descriptor = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if descriptor < 0 && errno == ENOENT {
            descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
        }
        guard descriptor >= 0 else { return .failed(.last()) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, Kind(mode: info.st_mode) == .regular else {
            close(descriptor)
            return .notARegularFile
        }
        var failure: HostError?
        let reserved = posix_fallocate(descriptor, 0, off_t(bytes.count))
        if reserved != 0 {
            _ = ftruncate(descriptor, info.st_size)
            failure = .numbered(reserved)
        }
        var rest = bytes[...]
        while failure == nil, !rest.isEmpty {
            let offset = off_t(bytes.count - rest.count)
            let written = rest.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, offset) }
            if written > 0 {
                rest = rest.dropFirst(written)
            } else if !(written < 0 && errno == EINTR) {
                failure = written < 0 ? .last() : HostError(description: "nothing was written")
            }
        }
        // The old text's tail, when it was longer.
        if failure == nil && ftruncate(descriptor, off_t(bytes.count)) != 0 { failure = .last() }
        // A full disk or a lost network share can show only when the file is closed.
        if close(descriptor) != 0 && failure == nil { failure = .last() }
        return failure.map { .failed($0) }
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

/// Linux's inotify on folders: what happened to each watched folder and to the files in it, in the order the kernel
/// queued it. The kernel merges an event identical to the one just before it.
public final class FolderEvents {
    /// What happened, one bit each (inotify's mask).
    public struct Kind: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let opened = Kind(rawValue: UInt32(IN_OPEN))
        public static let closedUnwritten = Kind(rawValue: UInt32(IN_CLOSE_NOWRITE))
        /// Something was made in the folder, or moved into it.
        public static let created = Kind(rawValue: UInt32(IN_CREATE))
        public static let movedIn = Kind(rawValue: UInt32(IN_MOVED_TO))
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
        /// The watch it came from, as `watch` returned it.
        public let watch: Int32
        /// The name, in the watched folder, of what it happened to; empty for the folder's own events.
        public let name: String
    }

    private let descriptor: Int32

    /// A set of watches with one queue of events; watching nothing yet.
    public init() {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Starts watching the folder at `path` for `kinds` (the kernel always adds `overflowed` and `watchEnded`):
    /// the number its events carry, or nil if it cannot (no folder there, no inotify).
    public func watch(_ path: String, for kinds: Kind) -> Int32? {
        guard descriptor >= 0 else { return nil }
        let watch = inotify_add_watch(descriptor, path, kinds.rawValue)
        return watch >= 0 ? watch : nil
    }

    /// Every event the kernel has queued, taken off its queue (16,384 events by default), without waiting.
    public func take() -> [Event] {
        guard descriptor >= 0 else { return [] }
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
                let nameStart = offset + MemoryLayout<inotify_event>.size
                let name = buffer[nameStart..<nameStart + Int(event.len)].prefix { $0 != 0 }
                events.append(
                    Event(kind: Kind(rawValue: event.mask), watch: event.wd, name: String(decoding: name, as: UTF8.self)))
                offset = nameStart + Int(event.len)
            }
        }
    }
}
