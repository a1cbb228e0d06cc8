import Foundation
import LessonKit
import LessonSupport
import TableKit

/// A screen controller (step 9's lottery machine) as the harness plays it:
/// made on the main queue with the trace's story clock and seeded random
/// numbers whose draws are noted, its labels and button those it made as it
/// was made, its queue the one whose operation sleeps on the clock, its button
/// tapped as a user taps it, and its queue emptied when the session ends.
/// Nothing is read from inside the controller, and it declares nothing.
///
/// `@unchecked Sendable`: the controller and its views are touched on the main
/// queue only; the queue and the recorder are thread-safe.
public final class ScreenSession: @unchecked Sendable {
    public let controller: any ScreenController
    public let outlets: Outlets
    /// Every random number the controller drew: when, and on which lane.
    public let draws: CallRecorder<Void>
    public let trace: OperationTrace

    /// What a screen needs for a session: one button to press.
    public struct MissingOutlet: Error, CustomStringConvertible {
        public let description: String
    }

    @MainActor
    public init(_ type: any ScreenController.Type, seed: UInt64, trace: OperationTrace) throws(MissingOutlet) {
        let draws = CallRecorder<Void>(trace: trace)
        let environment = ScreenEnvironment(clock: trace.clock.appClock, random: draws.random(seed: seed))
        let (controller, views) = ViewsMade.collect { type.init(environment: environment) }
        let outlets = Outlets(views)
        let name = String(describing: type)
        guard outlets.buttons.count == 1 else {
            throw MissingOutlet(description: "\(name) has \(outlets.buttons.count) buttons; the harness presses one")
        }
        // The main queue is watched by name; the screen's own queue is learnt
        // from the operation a tap hands to Dispatch, once it sleeps (`press`).
        trace.clock.watch(OperationQueue.main)
        trace.clock.watchDispatchWork()
        self.controller = controller
        self.outlets = outlets
        self.draws = draws
        self.trace = trace
    }

    /// The same, as a result to hand back from the main queue.
    @MainActor
    public static func make(
        _ type: any ScreenController.Type, seed: UInt64, trace: OperationTrace
    ) -> Result<ScreenSession, MissingOutlet> {
        Result { () throws(MissingOutlet) in try ScreenSession(type, seed: seed, trace: trace) }
    }

    public var button: Button { outlets.buttons[0] }
    /// The queue the screen rolls on: the first whose operation slept on the
    /// clock (its `OperationQueue.current`); nil until one has.
    public var queue: OperationQueue? { trace.clock.queuesSleptIn.first { $0 !== OperationQueue.main } }
    /// Operations in `queue` (0 before it is known).
    public var operationCount: Int { queue?.operationCount ?? 0 }

    /// True once the screen's queue holds no operation (or it has none);
    /// false if `seconds` of story time pass first.
    @discardableResult
    public func waitUntilEmpty(atMost seconds: Double) async -> Bool {
        guard let queue else { return true }
        return await trace.clock.waitUntilEmpty(queue, atMost: seconds)
    }

    /// Taps the button; returns when, on the trace.
    @MainActor
    @discardableResult
    public func press() -> Double {
        let ms = trace.now()
        trace.event(button.title)
        trace.clock.storyTurn { button.sendActions() }
        return ms
    }

    /// Stops whatever the queue runs, whatever the code does, and waits until
    /// it is empty: cancels everything, then resumes the queue, because a
    /// suspended queue finishes nothing, not even a cancelled operation.
    public func end() async {
        guard let queue else { return }
        queue.cancelAllOperations()
        queue.isSuspended = false
        _ = await trace.clock.waitUntilFinished(queue.operations)
    }
}

extension ScreenSession {
    /// The draws grouped one per label: a machine that draws a digit for each
    /// label it shows (the lottery machine) rolls once per group. Each roll is
    /// timed, and laned, by its last draw.
    public var rolls: [CallRecorder<Void>.Call] {
        let digits = max(outlets.labels.count, 1)
        let draws = self.draws.all
        return stride(from: digits - 1, to: draws.count, by: digits).map { draws[$0] }
    }
}
