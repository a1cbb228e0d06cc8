import Foundation
import UnseenSync

extension NSLocking {
    /// `withLock`, with the lock and what `body` reads and writes hidden from
    /// Thread Sanitizer: a lock of the harness's that the app's threads take
    /// must not order them (docs/architecture.md, "The race run").
    package func withUnseenLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        unseen_begin()
        defer { unseen_end() }
        return try withLock(body)
    }
}
