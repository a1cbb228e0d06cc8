import Glibc

/// Why a call to the host OS failed, in the C library's words (`strerror(errno)`), read right after the call.
public struct HostError: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(description: String) {
        self.description = description
    }

    /// The calling thread's last error (`errno`), as a sentence.
    static func last() -> HostError {
        HostError(description: String(cString: strerror(errno)))
    }
}
