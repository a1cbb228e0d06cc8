import Glibc

/// Why a call to the host OS failed, in the C library's words (`strerror(errno)`), read right after the call.
public struct HostError: Error, CustomStringConvertible, Sendable {
    public let description: String
    /// The error's number (`errno`), 0 for a failure the C library has no number for.
    let code: Int32

    init(description: String, code: Int32 = 0) {
        self.description = description
        self.code = code
    }

    /// Whether nothing was there (ENOENT).
    public var isNoSuchFile: Bool { code == ENOENT }

    /// The calling thread's last error (`errno`).
    static func last() -> HostError {
        numbered(errno)
    }

    static func numbered(_ code: Int32) -> HostError {
        HostError(description: String(cString: strerror(code)), code: code)
    }
}
