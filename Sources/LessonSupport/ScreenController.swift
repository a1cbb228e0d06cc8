/// What the harness hands a screen controller: the story's clock and its luck.
public struct ScreenEnvironment: Sendable {
    /// What the app sleeps on: `clock.sleep(forTimeInterval: 0.05)` is the tutorial's 50 ms tick.
    public let clock: AppClock
    /// Where the app's random numbers come from.
    public let random: RandomSource

    public init(clock: AppClock, random: RandomSource) {
        self.clock = clock
        self.random = random
    }
}

/// A step's view controller that shows a screen of its own instead of a table
/// (step 9's lottery machine). The harness makes it from its type, as UIKit
/// makes a view controller from a storyboard, and finds the labels and button
/// it makes as it is made, and the queue whose operation sleeps on the story
/// clock, wherever it keeps them (nothing to declare); it taps the button as a
/// user would.
public protocol ScreenController: AnyObject, SendableMetatype {
    init(environment: ScreenEnvironment)

    /// Controllers the step's executable plays instead of this one when asked
    /// (`--no-check`): the step's bugs kept on purpose, to compare against.
    static var variants: [ScreenVariant] { get }
}

extension ScreenController {
    public static var variants: [ScreenVariant] { [] }
}

/// A screen controller a step can play instead of its own, chosen by a flag of its own (`--no-check`).
public typealias ScreenVariant = StepVariant<any ScreenController.Type>
