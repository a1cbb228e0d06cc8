import Foundation
import LessonKit

/// Reading a file the learner's folder holds, which may be anything: a FIFO
/// or a device is refused by what it is, without waiting on it.
enum FileRead {
    enum Problem: Error, CustomStringConvertible {
        /// "a FIFO (a named pipe)", "a folder"…
        case notAFile(String)
        case unreadable(String)

        var description: String {
            switch self {
            case .notAFile(let kind): "it is \(kind), not a file"
            case .unreadable(let reason): reason
            }
        }
    }

    /// The bytes of `url` if it is a regular file (a link to one is followed); nil if there is nothing there.
    static func regularFile(_ url: URL) throws(Problem) -> Data? {
        // O_NONBLOCK: opening a FIFO must not wait for a writer.
        let descriptor = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw .unreadable(String(cString: strerror(errno)))
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw .unreadable(reason)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw .notAFile(kind(info.st_mode))
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            return try handle.readToEnd() ?? Data()
        } catch {
            throw .unreadable(SystemErrorText.describe(error))
        }
    }

    /// Whether `url` is a regular file, or a link to one.
    static func isRegularFile(_ url: URL) -> Bool {
        var info = stat()
        return stat(url.path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG
    }

    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO (a named pipe)"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }
}
