import Foundation

/// Set once, waited for on a condition (no Dispatch semaphore: the harness hands those out).
final class Latch: @unchecked Sendable {
    private let condition = NSCondition()
    private var value = false

    var isSet: Bool { condition.withLock { value } }

    func set() {
        condition.withLock {
            value = true
            condition.broadcast()
        }
    }

    func wait() {
        condition.withLock { while !value { condition.wait() } }
    }
}
