import Foundation
import UnseenSync

extension NSLocking {
    /// `withLock`, with the lock and what `body` reads and writes hidden from
    /// Thread Sanitizer, as `Locked` hides its own: for a lock that is also a
    /// condition (the story clock's `NSCondition`), which `Locked` is not
    /// (docs/architecture.md, "The race run").
    package func withUnseenLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        unseen_begin()
        defer { unseen_end() }
        return try withLock(body)
    }
}
