import Foundation
import LessonChecks
import LessonKit
import Synchronization
import Testing

/// A run the story clock stops says so first, with the learner's line: a
/// download block that sleeps for hours (Tests/Fixtures/SleepingBlock) keeps
/// the app from going quiet, so the story cannot move on and its hang guard
/// stops the run at 0 frames. The check says the run was stopped, where the
/// sleeping block was, and judges nothing on the figures it never reached:
/// never "✗ … stall 0 ms".
/// Not in the TSan leg: the line is read from the Swift backtracer, which the TSan leg turns off.
@Suite(.disabled(if: ThreadSanitizer.isOn, "the TSan leg runs without the Swift backtracer that names the line"))
struct StoryClockStopTests {
    static let program = Rig.productsDirectory.appendingPathComponent("SleepingBlockFixture")

    @Test func aBlockThatSleepsForHoursIsSaidStoppedAtItsLine() async throws {
        let narrated = Mutex<[String]>([])
        let results = await ImageListChecks.check(
            exercise: 2,
            run: ImageListChecks.inChildProcesses(Self.program, root: Rig.packageRoot) { line in
                narrated.withLock { $0.append(line) }
            })
        let lines = narrated.withLock { $0 }
        let stop = try #require(
            lines.first { $0.hasPrefix("✗ stopped: the story clock ended the") }, "\(lines.joined(separator: "\n"))")
        // Said before any verdict, at the sleeping block's line.
        #expect(
            stop.contains("\n  It was here: Tests/Fixtures/SleepingBlock/AppsViewController.swift:47:"), "\(stop)")
        #expect(!results.isEmpty)
        for result in results {
            #expect(!result.wasMeasured, "\(result.bug): \(result.measured)")
            #expect(result.measured.hasPrefix("not measured: your program never went quiet: "), "\(result.measured)")
        }
        #expect(!results.rendered(exercise: 2).contains("stall 0 ms"))
    }
}
