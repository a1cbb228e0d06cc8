import Foundation

// What the exercise checks (`LessonChecks`) need to see of the code under test.
// The image-list steps all implement `LessonController`; steps 8 and 9 are not
// tables, so they get a protocol each: small, and shaped like the code the
// step already has, so that the step's own types conform in one line.

/// Step 8's software update: three operations, download → unzip → install,
/// across a background queue and `OperationQueue.main`.
public protocol SoftwareUpdateExercise: AnyObject {
    /// Makes the three operations and enqueues them. With `withDependencies`,
    /// each must wait for the one before it.
    func start(withDependencies: Bool) -> [Operation]

    /// The same chain with the tutorial's commented-out line switched on (the
    /// download also waits for the install when `withCycle`). A cycle must be
    /// refused with an error that names it, before anything is enqueued.
    func startCheckingForCycles(withCycle: Bool) throws -> [Operation]

    /// The steps in the order they finished, and whether each found what the
    /// step before it should have left.
    var finishedStepRecords: [(name: String, hadInput: Bool)] { get }
}

/// Step 9's lottery machine: digits rolled by one long operation, shown on
/// the main queue, paused and resumed with one button that suspends the queue.
public protocol LotteryMachineExercise: AnyObject {
    var queue: OperationQueue { get }
    /// What the button reads: "start", then "pause" and "resume" in turn.
    var buttonTitle: String { get }
    /// The button; called on the main queue.
    func buttonTapped()
    /// Stops the rolling, whatever the code does, and waits until the queue is empty.
    func quit() async
    /// Every roll shown so far, in order: when it was rolled (ms on the
    /// machine's trace) and whether the digits were set on the main queue.
    var shownRolls: [(rolledMs: Double, onMainQueue: Bool)] { get }
}

extension LessonEntry {
    /// The entry a workbench run uses: this step's scenarios and texts, under
    /// the workbench's own name (and so its own Caches folder).
    public func workbench(defaultScenario: String? = nil) -> LessonEntry {
        LessonEntry(
            number: number, target: "Workbench", title: "your workbench, exercise \(number) (\(title))", fixes: fixes,
            lesson: lesson, defaultScenario: defaultScenario ?? self.defaultScenario, text: text)
    }
}
