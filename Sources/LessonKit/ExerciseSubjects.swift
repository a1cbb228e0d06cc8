import Foundation

// What the exercise checks (`LessonChecks`) need to see of the code under test.
// The image-list steps all implement `LessonController`; step 8 is not a
// table, so it gets a protocol: small, and shaped like the code the step
// already has, so that the step's own type conforms in one line.

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

extension LessonEntry {
    /// The entry a workbench run uses: this step's scenarios and texts, under
    /// the workbench's own name (and so its own Caches folder).
    public func workbench(defaultScenario: String? = nil) -> LessonEntry {
        LessonEntry(
            number: number, target: "Workbench", title: "your workbench, exercise \(number) (\(title))", fixes: fixes,
            lesson: lesson, defaultScenario: defaultScenario ?? self.defaultScenario, text: text)
    }
}
