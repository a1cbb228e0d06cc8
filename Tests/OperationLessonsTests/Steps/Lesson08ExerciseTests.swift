import Foundation
import LessonChecks
import LessonKit
import Testing

@preconcurrency @testable import Exercise08Start
@preconcurrency @testable import Lesson08Dependencies

/// Exercise 8, proven: its checks fail on the starting code (no dependencies,
/// no cycle check) and pass on step 8's code, each handed to the checks as the
/// workbench's `main.swift` hands the learner's: made in the check's world,
/// given over as its controls.
@Suite struct Lesson08ExerciseTests {
    @Test func theStartingCodeRunsOutOfOrderAndHangsOnTheCycle() async {
        let results = await DependencyChecks.check { world in
            let update = Exercise08Start.SoftwareUpdate(
                network: world.network, log: world.log, clock: world.clock, unzipSeconds: world.unzipSeconds)
            return SoftwareUpdateControls(
                start: update.start(withDependencies:),
                startCheckingForCycles: update.startCheckingForCycles(withCycle:), statusLabel: update.statusLabel)
        }
        ExerciseProof.expectEveryBugPresent(results)
        #expect(results.first { $0.bug == DependencyChecks.cycle.name }?.measured.contains("hung") == true)
    }

    @Test func step8SolvesIt() async {
        let results = await DependencyChecks.check { world in
            let update = Lesson08Dependencies.SoftwareUpdate(
                network: world.network, log: world.log, clock: world.clock, unzipSeconds: world.unzipSeconds)
            return SoftwareUpdateControls(
                start: update.start(withDependencies:),
                startCheckingForCycles: update.startCheckingForCycles(withCycle:), statusLabel: update.statusLabel)
        }
        ExerciseProof.expectSolved(results)
    }

    /// The exercise's starting files are step 8's minus the fix: the same
    /// `makeOperations`, the same three steps, so what the checks measure is the fix alone.
    @Test func theStartingCodeIsStep8WithoutItsFix() throws {
        let start = try String(
            contentsOf: Rig.packageRoot.appendingPathComponent(
                "Sources/Exercise08Start/SoftwareUpdate.swift"), encoding: .utf8)
        let step = try String(
            contentsOf: Rig.packageRoot.appendingPathComponent(
                "Sources/Lesson08Dependencies/SoftwareUpdate.swift"), encoding: .utf8)
        #expect(!start.contains("addDependency(download)\n            install.addDependency"))
        #expect(step.contains("unzip.addDependency(download)"))
        for piece in [
            "func makeOperations()", "private func download()", "private func unzip()", "private func install()",
        ] {
            let body = { (text: String) in text.components(separatedBy: piece).last?.prefix(400) }
            #expect(body(start) == body(step), "\(piece) differs")
        }
    }
}
