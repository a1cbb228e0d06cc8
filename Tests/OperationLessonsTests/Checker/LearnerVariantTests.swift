import Foundation
import LessonChecks
import LessonKit
import Testing

@preconcurrency @testable import Lesson08Dependencies

/// The variants of docs/checker-variants.md that are cheap to keep: played by the checks in process, as the
/// workbench's `main.swift` hands the learner's code over.
@Suite struct LearnerVariantTests {
    /// Exercise 8 with step 8's operations, its dependencies added last-first (`install` on `unzip` before
    /// `unzip` on `download`) and enqueued in the order they run: the order of adding them is no part of the
    /// fix, so solved, as on a device (`lessons check 8` said the same of it, 2026-12-06).
    @Test func dependenciesAddedInAnotherOrderSolveExercise8() async {
        let results = await DependencyChecks.check { world in
            let update = SoftwareUpdate(
                network: world.network, log: world.log, clock: world.clock, unzipSeconds: world.unzipSeconds)
            let start = { (withDependencies: Bool) -> [Operation] in
                let (download, unzip, install) = update.makeOperations()
                if withDependencies {
                    install.addDependency(unzip)
                    unzip.addDependency(download)
                }
                update.backgroundQueue.addOperation(download)
                update.backgroundQueue.addOperation(unzip)
                OperationQueue.main.addOperation(install)
                return [download, unzip, install]
            }
            return SoftwareUpdateControls(
                start: start, startCheckingForCycles: update.startCheckingForCycles(withCycle:),
                statusLabel: update.statusLabel)
        }
        ExerciseProof.expectSolved(results)
    }
}
