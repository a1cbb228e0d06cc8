import Foundation
import TableKit

/// What exercise 8's checks press and read of a software update (step 8's,
/// the exercise's starting code, the learner's workbench): its two ways to
/// start and its status line. The workbench's `main.swift` (and a test) makes
/// the update and hands these over; the update itself conforms to nothing.
public struct SoftwareUpdateControls {
    /// Makes the three operations and enqueues them. With dependencies, each
    /// must wait for the one before it.
    public let start: (_ withDependencies: Bool) -> [Operation]
    /// The same chain with the tutorial's commented-out line switched on (the
    /// download also waits for the install, with a cycle). A cycle must be
    /// refused with an error that names it, before anything is enqueued.
    public let startCheckingForCycles: (_ withCycle: Bool) throws -> [Operation]
    public let statusLabel: Label

    public init(
        start: @escaping (_ withDependencies: Bool) -> [Operation],
        startCheckingForCycles: @escaping (_ withCycle: Bool) throws -> [Operation], statusLabel: Label
    ) {
        self.start = start
        self.startCheckingForCycles = startCheckingForCycles
        self.statusLabel = statusLabel
    }
}
