import Foundation
import LessonKit
import TableKit

/// Step 8 told as a tour in the terminal: the whole of the step's `main.swift`.
///
/// The tour makes the update's world (`UpdateWorld`: the network, the log, the
/// unzip's time), hands it to the step, which makes its `SoftwareUpdate` and
/// returns the controls below, then drives the update and watches it from
/// outside: the network's request log, the update's log lines with their
/// threads, its status label, its queue.
public enum DependencyTour {
    public static func run(
        arguments: [String] = Array(CommandLine.arguments.dropFirst()),
        update make: @escaping (UpdateWorld) -> UpdateControls
    ) async -> Int32 {
        await CustomLessonMain.run(
            8, stories: TourPlan.allParts, stepFlags: TourPlan.flags, unsupported: [.catalog, .clearCache],
            example: "swift run Lesson08Dependencies --part chain,cycle --seed 3 --timeline /tmp/lesson08.svg",
            arguments: arguments, plan: TourPlan.init(options:),
            play: { plan, run in await Tour(plan: plan, run: run, make: make).play() })
    }
}

/// What the tour presses and reads of step 8's update: its methods, its queue
/// and its status line, as the step hands them over. Nothing here measures.
public struct UpdateControls {
    /// `start(withDependencies:)`: the chain, with or without its dependencies.
    public let start: (_ withDependencies: Bool) -> [Operation]
    public let startWithCancelledDownload: () -> [Operation]
    public let startWithUncheckedCycle: () -> [Operation]
    public let startCheckingForCycles: (_ withCycle: Bool) throws -> [Operation]
    public let backgroundQueue: OperationQueue
    public let statusLabel: Label

    public init(
        start: @escaping (_ withDependencies: Bool) -> [Operation],
        startWithCancelledDownload: @escaping () -> [Operation],
        startWithUncheckedCycle: @escaping () -> [Operation],
        startCheckingForCycles: @escaping (_ withCycle: Bool) throws -> [Operation],
        backgroundQueue: OperationQueue, statusLabel: Label
    ) {
        self.start = start
        self.startWithCancelledDownload = startWithCancelledDownload
        self.startWithUncheckedCycle = startWithUncheckedCycle
        self.startCheckingForCycles = startCheckingForCycles
        self.backgroundQueue = backgroundQueue
        self.statusLabel = statusLabel
    }
}
