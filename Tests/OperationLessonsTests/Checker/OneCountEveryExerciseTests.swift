import Foundation
import LessonChecks
import LessonKit
import Testing

@preconcurrency @testable import Lesson08Dependencies
@testable import Lesson09LotteryMachine
@testable import WebImage

/// One count for every exercise: the task (`lessons task N`), the exercise
/// list (`lessons exercise`), `lessons check`'s summary and `lessons watch`'s
/// line count the same bugs. The check's verdict is made as `lessons check`
/// makes it (`Exercise.verdict`): the exercise's own checks, here on the
/// step's solution (8–10, played on the story) or on runs that all failed
/// (the image lists: every bug not measured), then the compiler's and the
/// race's verdicts where the exercise has them.
@Suite struct OneCountEveryExerciseTests {
    static func workbenchResults(_ exercise: Exercise) async -> [CheckResult] {
        switch exercise.kind {
        case .imageList:
            return await ImageListChecks.check(exercise: exercise.number) { _ in
                throw RunFailure("not played: the count needs the verdict's rows, not their figures")
            }
        case .softwareUpdate:
            return await DependencyChecks.check { world in
                let update = Lesson08Dependencies.SoftwareUpdate(
                    network: world.network, log: world.log, clock: world.clock, unzipSeconds: world.unzipSeconds)
                return SoftwareUpdateControls(
                    start: update.start(withDependencies:),
                    startCheckingForCycles: update.startCheckingForCycles(withCycle:), statusLabel: update.statusLabel)
            }
        case .lotteryMachine:
            return await LotteryChecks.check(machine: Lesson09LotteryMachine.LotteryViewController.self)
        case .asyncOperation:
            return await AsyncOperationChecks.check {
                WebImage.ImageDownloadOperation(url: $0, network: $1, progress: $2, completion: $3)
            }
        }
    }

    /// "3 of 4 bugs fixed" in `text`: the 4.
    static func total(in text: String) -> Int? {
        text.firstMatch(of: #/\d+ of (\d+) bugs? fixed/#).flatMap { Int($0.1) }
    }

    @Test(arguments: ExerciseCatalog.all.map(\.number))
    func theTaskTheListTheCheckAndTheWatchCountTheSameBugs(number: Int) async throws {
        let exercise = try #require(ExerciseCatalog.exercise(number))
        let root = try ExerciseCommandTests.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }

        let task = try await ExerciseCommandTests.lessons(["task", "\(number)"], root: root)
        let listed = task.standardOutput.split(separator: "\n").filter { $0.firstMatch(of: #/^  \d+\. /#) != nil }
        let list = try await ExerciseCommandTests.lessons(["exercise"], root: root)
        let line = try #require(
            list.standardOutput.split(separator: "\n").first { $0.dropFirst(2).hasPrefix("\(number) ") })
        let inList = line.drop { $0 != ":" }.dropFirst(2).components(separatedBy: "; ")

        let race = exercise.checksRaces ? RaceCheck.judge(errors: "", crashed: false, of: exercise.raceSubject) : nil
        let swift6 =
            exercise.checksSwift6
            ? Swift6Check.judge(buildLog: "", compiled: true, root: root, code: LearnerCode(files: [:])) : nil
        let verdict = exercise.verdict(
            workbench: await Self.workbenchResults(exercise), swift6: swift6, race: race)
        let check = verdict.summary(exercise: number)
        let watch = VerdictChange.summary(from: nil, to: verdict)

        let counts = [
            "task": listed.count, "list": inList.count, "check": Self.total(in: check),
            "watch": Self.total(in: watch),
        ]
        #expect(
            Set(counts.values) == [exercise.bugs.filter { !$0.isSafeguard }.count],
            "exercise \(number): \(counts) · check: \(check) · watch: \(watch)")
        // Every bug the task lists has one row in the verdict, as a bug to fix or as one to keep.
        #expect(
            verdict.map { "\($0.bug) \($0.isSafeguard)" }.sorted()
                == exercise.bugs.map { "\($0.name) \($0.isSafeguard)" }.sorted(), "exercise \(number)")
    }
}
