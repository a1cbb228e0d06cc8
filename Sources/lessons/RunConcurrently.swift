import Foundation
import HarnessSync

/// Runs `count` jobs, at most `jobs` at a time, and returns their results in order.
func runConcurrently<T: Sendable>(count: Int, jobs: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
    let results = Locked([T?](repeating: nil, count: count), .seen)
    let next = Locked(0, .seen)
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
