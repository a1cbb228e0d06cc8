import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import Testing

/// The exercises' checks (`LessonChecks`) run as the steps' tests: against
/// step N's own code they must pass (the exercise can be solved), against the
/// code the exercise starts from every bug it names must be measured present
/// (the exercise is not solved before the learner starts). The learner's
/// workbench is never built or touched here: `lessons check` runs the same
/// checks against it.
enum ExerciseProof {
    /// Exercise `exercise`'s checks on a step played in this process, on the
    /// runs the other tests of that step share (`SharedRuns`).
    static func imageList(_ exercise: Int, _ controller: any LessonController.Type) async -> [CheckResult] {
        await ImageListChecks.check(exercise: exercise) { scenario in
            await SharedRuns.shared.result(controller, scenario).report
        }
    }

    /// The same for a step whose race can crash its process (step 4): each run
    /// is the step's executable in a child process, played again after a crash
    /// (and read whole after a Thread Sanitizer report, in the TSan leg).
    static func imageListInChildProcess(_ exercise: Int, step: Int) async -> [CheckResult] {
        await ImageListChecks.check(exercise: exercise) { scenario in
            try await reportOfRacyStep(step, scenario: scenario)
        }
    }

    /// Step N's own code: every check passes.
    static func expectSolved(_ results: [CheckResult], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!results.isEmpty, sourceLocation: sourceLocation)
        for result in results {
            #expect(
                result.passed, "\(result.bug): measured \(result.measured), expected \(result.expected)",
                sourceLocation: sourceLocation)
        }
    }

    /// The result of the named bug.
    static func result(_ results: [CheckResult], _ bug: BugText) -> CheckResult? {
        results.first { $0.bug == bug.name }
    }

    /// The starting code: every bug the exercise names is there (a safeguard,
    /// the UI touched on the main queue, is not a bug of the starting code).
    static func expectEveryBugPresent(_ results: [CheckResult], sourceLocation: SourceLocation = #_sourceLocation) {
        let bugs = results.filter { !$0.isSafeguard }
        #expect(!bugs.isEmpty, sourceLocation: sourceLocation)
        for result in bugs {
            #expect(
                !result.passed, "\(result.bug) measured fixed already: \(result.measured)",
                sourceLocation: sourceLocation)
        }
        #expect(!results.allPassed, sourceLocation: sourceLocation)
    }
}
