import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import Testing

@testable import Lesson05OperationPool

/// A safeguard whose situation never arose is not measured, never ✓: step 5's
/// controller has no disk cache at all, so checked by exercise 6 no two icons
/// can share a file, and saying "✓ kept" would praise code that is not there.
@Suite struct UnmeasuredVerdictTests {
    @Test func noDiskCacheLeavesTheSharedFileSafeguardUnmeasured() async throws {
        let results = await ExerciseProof.imageList(6, Lesson05OperationPool.AppsViewController.self)
        let shared = try #require(results.first { $0.bug == "icons whose URLs end alike share one file on disk" })
        #expect(!shared.passed && !shared.wasMeasured)
        #expect(
            shared.measured
                == "not measured: no file was written to the Caches folder (0 files on disk for 8 icons), so no two "
                + "icons could share one")
        let rendered = results.rendered(exercise: 6)
        #expect(rendered.contains("? unchecked icons whose URLs end alike share one file on disk"))
        #expect(!rendered.contains("✓ kept      icons whose URLs end alike"))
        #expect(rendered.contains("not measured: icons whose URLs end alike share one file on disk."))
        // What step 5 lacks is still found: the relaunch downloads again.
        let relaunch = try #require(results.first { $0.bug == "a relaunch downloads every icon again" })
        #expect(!relaunch.passed && relaunch.wasMeasured)
    }
}

/// One count: the task lists exercise 5's bugs with the data race among them,
/// and the workbench's verdict (before the race is checked), the verdict with
/// the race, and the watch count the same table.
@Suite struct OneCountTests {
    @Test func theTaskTheCheckAndTheWatchCountTheSameBugs() async throws {
        let exercise = try #require(ExerciseCatalog.exercise(5))
        #expect(exercise.bugs.filter { !$0.isSafeguard }.count == 4)
        let results = await ExerciseProof.imageList(5, Lesson05OperationPool.AppsViewController.self)
        #expect(
            results.summary(exercise: 5, stillToCheck: "the data race")
                == "Exercise 5: 3 of 4 bugs fixed, nothing broken on the way; still to check: the data race.")
        let withRace = results + [RaceCheck.judge(errors: "", crashed: false)]
        #expect(withRace.summary(exercise: 5) == "Exercise 5 solved: 4 of 4 bugs fixed, nothing broken on the way.")
        #expect(VerdictChange.summary(from: nil, to: withRace) == "First check: 4 of 4 bugs fixed.")
    }

    @Test func aRaceRunThatEndsWithoutAReportIsNotMeasured() {
        let verdict = RaceCheck.judge(errors: "", crashed: false, reported: false)
        #expect(!verdict.passed && !verdict.wasMeasured)
        #expect(
            verdict.measured == "not measured: the Thread Sanitizer run of flick-then-peek ended without a report")
    }
}
