import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A file the user names for a lesson to write (`--timeline FILE.svg`): a new
/// regular file, or a regular file written over in place, and nothing else.
///
/// Written over in place, like `cp` does, so the file keeps its mode, its
/// owner and its hard links; its room reserved first, so a full disk leaves
/// the old file whole. A symbolic link, a FIFO, a device or a folder
/// is refused with a sentence that says what it is: writing "atomically" (a
/// new file renamed over the name) would have turned each of them into a
/// regular file.
public enum OutputFile {
    /// Why `path` cannot be written, or nil when it can: checked before a run,
    /// so the learner does not wait for a run whose picture has nowhere to go.
    public static func problem(at path: String) -> String? {
        var info = stat()
        if lstat(path, &info) == 0 {
            if let kind = notARegularFile(info.st_mode, path: path) { return kind }
            return access(path, W_OK) == 0 ? nil : String(cString: strerror(errno))
        }
        guard errno == ENOENT else { return String(cString: strerror(errno)) }
        let folder = (path as NSString).deletingLastPathComponent
        let parent = folder.isEmpty ? "." : folder
        var parentInfo = stat()
        guard stat(parent, &parentInfo) == 0, parentInfo.st_mode & S_IFMT == S_IFDIR else {
            return "the folder \(parent) does not exist"
        }
        return access(parent, W_OK) == 0 ? nil : "cannot make a file in \(parent): \(String(cString: strerror(errno)))"
    }

    /// Writes `text` to `path`.
    public static func write(_ text: String, to path: String) throws(OutputFileError) {
        if let problem = problem(at: path) { throw OutputFileError(path: path, problem: problem) }
        // O_NOFOLLOW: a link made since the check is refused, not followed.
        // O_NONBLOCK: a FIFO made since the check fails at once instead of
        // waiting for a reader; on a regular file it changes nothing.
        var descriptor = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if descriptor < 0 && errno == ENOENT {
            descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
        }
        guard descriptor >= 0 else { throw OutputFileError(path: path, problem: String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, notARegularFile(info.st_mode, path: path) == nil else {
            close(descriptor)
            throw OutputFileError(path: path, problem: "it changed into something that is not a regular file")
        }
        let text = Array(text.utf8)
        var bytes = text[...]
        // Room for the whole text first: on a full disk the old file stays
        // whole (put back to its length), instead of being cut where the space ran out.
        var failure: String?
        let reserved = posix_fallocate(descriptor, 0, off_t(text.count))
        if reserved != 0 {
            _ = ftruncate(descriptor, info.st_size)
            failure = String(cString: strerror(reserved))
        }
        while failure == nil, !bytes.isEmpty {
            let offset = off_t(text.count - bytes.count)
            let written = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, offset) }
            if written > 0 {
                bytes = bytes.dropFirst(written)
            } else if !(written < 0 && errno == EINTR) {
                failure = written < 0 ? String(cString: strerror(errno)) : "nothing was written"
            }
        }
        // The old text's tail, when it was longer.
        if failure == nil && ftruncate(descriptor, off_t(text.count)) != 0 { failure = String(cString: strerror(errno)) }
        // A full disk or a lost network share can show only when the file is closed.
        if close(descriptor) != 0 && failure == nil { failure = String(cString: strerror(errno)) }
        if let failure { throw OutputFileError(path: path, problem: failure) }
    }

    private static func notARegularFile(_ mode: mode_t, path: String) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR:
            "it is a folder; give a file name, such as \((path as NSString).appendingPathComponent("timeline.svg"))"
        case S_IFLNK: "it is a symbolic link; give the file it points to, or a new name (the link is left alone)"
        case S_IFIFO: "it is a FIFO (a named pipe), not a regular file"
        case S_IFCHR, S_IFBLK: "it is a device, not a regular file"
        case S_IFSOCK: "it is a socket, not a regular file"
        default: "it is not a regular file"
        }
    }
}

public struct OutputFileError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let problem: String

    public var description: String { "cannot write \(path): \(problem)" }
}
