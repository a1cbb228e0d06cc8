import Glibc

/// File descriptors: the standard streams' numbers, and writes that take every byte or say why not.
public enum HostDescriptor {
    public static let standardInput = STDIN_FILENO
    public static let standardOutput = STDOUT_FILENO
    public static let standardError = STDERR_FILENO

    /// Writes all of `bytes` to `descriptor` (`write(2)`), again after an interruption, and waiting until a
    /// descriptor someone made non-blocking takes more; nil once written, or why not.
    public static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> HostError? {
        var bytes = bytes[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written > 0 {
                bytes = bytes.dropFirst(written)
            } else if written < 0 && errno == EINTR {
                continue
            } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, 1000)
            } else {
                return written < 0 ? .last() : HostError(description: "nothing was written")
            }
        }
        return nil
    }

    /// The next byte read from `descriptor`, waiting for it (`read`); nil at the end of input or on an error.
    public static func readByte(from descriptor: Int32) -> UInt8? {
        var byte: UInt8 = 0
        return read(descriptor, &byte, 1) == 1 ? byte : nil
    }

    /// A descriptor open on `path` for reading, nil if it cannot be opened.
    public static func openForReading(_ path: String) -> Int32? {
        let descriptor = open(path, O_RDONLY)
        return descriptor >= 0 ? descriptor : nil
    }

    /// A second descriptor on what `descriptor` is open on (`dup`).
    public static func duplicate(_ descriptor: Int32) -> Int32 {
        dup(descriptor)
    }

    /// Puts `descriptor` at the number `target` (`dup2`), closing what was there, then closes `descriptor`.
    public static func move(_ descriptor: Int32, onto target: Int32) {
        dup2(descriptor, target)
        close(descriptor)
    }

    /// Whether `descriptor` is open (`fcntl(F_GETFD)`).
    public static func isOpen(_ descriptor: Int32) -> Bool {
        fcntl(descriptor, F_GETFD) != -1
    }

    /// Opens `/dev/null` on the lowest free descriptor, closed again on `exec`: a number kept from being taken.
    public static func holdLowestFree() {
        _ = open("/dev/null", O_RDWR | O_CLOEXEC)
    }

    /// Whether `descriptor` is an "anonymous inode" (an epoll, an eventfd, a timerfd): something a program made for
    /// itself, to which Linux gives no file type at all.
    public static func isAnonymous(_ descriptor: Int32) -> Bool {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        return status.st_mode & S_IFMT == 0
    }
}
