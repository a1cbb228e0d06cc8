import Foundation
import LessonKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A one-line progress report on stderr while children run: rewritten in
/// place on a terminal, one line per update otherwise.
final class Progress: Sendable {
    private let total: Int
    private let done = Mutex(0)
    private let live = isatty(STDERR_FILENO) == 1

    init(total: Int) {
        self.total = total
    }

    func started(_ what: String) {
        let count = done.withLock { $0 }
        show("[\(count + 1)/\(total)] \(what) …")
    }

    func finished() {
        done.withLock { $0 += 1 }
    }

    func end() {
        if live { Self.wipeLine() }
    }

    /// Wipes a progress line left on the terminal (the program is ending).
    static func wipeLine() {
        if isatty(STDERR_FILENO) == 1 { StandardStream.error.write("\r\u{1B}[K") }
    }

    private func show(_ line: String) {
        StandardStream.error.write(live ? "\r\u{1B}[K" + String(line.prefix(100)) : line + "\n")
    }
}

/// Runs `count` jobs, at most `jobs` at a time, and returns their results in order.
func runConcurrently<T: Sendable>(count: Int, jobs: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
    let results = Mutex([T?](repeating: nil, count: count))
    let next = Mutex(0)
    DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, count))) { _ in
        while true {
            let index = next.withLock { value -> Int in
                defer { value += 1 }
                return value
            }
            guard index < count else { return }
            let result = body(index)
            results.withLock { $0[index] = result }
        }
    }
    return results.withLock { $0.compactMap { $0 } }
}
