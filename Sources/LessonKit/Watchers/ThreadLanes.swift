import Foundation
import HarnessSync
import HostOS

/// Names the threads that do work, for logs and timelines: "main queue", or
/// "worker N" with N counted in the order threads first show up. Thread ids are
/// long and meaningless; lanes that read 1, 2, 3 are what a learner can follow.
public final class ThreadLanes: @unchecked Sendable {
    private let lock = Locked(.seen)
    private var numbers: [UInt: Int] = [:]

    public init() {}

    /// The calling thread's lane.
    public func current(onMainQueue: Bool) -> String {
        if onMainQueue { return "main queue" }
        let thread = HostThread.currentID
        let number = lock.withLock {
            if let known = numbers[thread] { return known }
            numbers[thread] = numbers.count + 1
            return numbers.count
        }
        return "worker \(number)"
    }
}
