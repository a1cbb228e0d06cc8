import Foundation

/// The operating system's words for a failed file operation ("Permission
/// denied", "No space left on device"), rather than Foundation's
/// "NSCocoaErrorDomain error 513" or a sentence that guesses at the cause.
public enum SystemErrorText {
    public static func describe(_ error: any Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey]
        // On Linux the underlying error is a Swift `POSIXError`, which does not cast to `NSError`.
        if let posix = underlying as? POSIXError {
            return String(cString: strerror(posix.code.rawValue))
        }
        if let posix = underlying as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        return error.localizedDescription
    }
}
