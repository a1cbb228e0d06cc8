import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import TableKit
import Testing

@testable import Lesson01SyncLoad
@testable import Lesson02AsyncPlaceholder

/// The hints `lessons hint` gives a level at a time are checked against the
/// code: where a hint says to look is in the exercise's code (or the step's,
/// where the learner writes it), and the code of the last level is the fixing
/// step's own.
@Suite struct HintTests {
    /// A bug's hints and the folders they speak of: where it is looked for, and the step that fixes it.
    struct Case: CustomTestStringConvertible, Sendable {
        let text: BugText
        let lookIn: [String]
        let fixedIn: [String]
        var testDescription: String { text.name }
    }

    static var cases: [Case] {
        var cases: [String: Case] = [:]
        for exercise in ExerciseCatalog.all {
            var fixedIn = [exercise.solutionFolder]
            if exercise.kind == .imageList {
                // An earlier fix kept is in the earlier step's code, and still in this one's.
                fixedIn += exercise.bugs.compactMap { KnownBug.named($0.name) }.compactMap {
                    LessonCatalog.entry($0.fixedIn).map { "Sources/\($0.target)" }
                }
            }
            // An earlier step's fix kept (all of them, in exercise 11) is that step's: looked for below.
            for bug in exercise.bugs
            where cases[bug.name] == nil && (KnownBug.named(bug.name).map { $0.fixedIn >= exercise.number } ?? true) {
                let own = KnownBug.named(bug.name).flatMap { LessonCatalog.entry($0.fixedIn) }
                cases[bug.name] = Case(
                    text: bug, lookIn: [exercise.startFolder, exercise.solutionFolder],
                    fixedIn: own.map { ["Sources/\($0.target)"] } ?? fixedIn)
            }
        }
        // The bugs no exercise has as its own (step 10's image list): the step before, and step 10's library.
        for bug in KnownBug.all where cases[bug.name] == nil {
            let before = bug.stepBefore.flatMap(LessonCatalog.entry).map { "Sources/\($0.target)" }
            let step = LessonCatalog.entry(bug.fixedIn).map { "Sources/\($0.target)" }
            cases[bug.name] = Case(
                text: bug.text, lookIn: [before, step].compactMap { $0 },
                fixedIn: [step, "Sources/WebImage"].compactMap { $0 })
        }
        return cases.values.sorted { $0.text.name < $1.text.name }
    }

    /// Swift code without its comments, its spacing made one space: a snippet
    /// matches the step whatever its line breaks and indentation.
    static func normalized(_ code: String) -> String {
        code.split(separator: "\n").map { line in
            line.range(of: "//").map { line[..<$0.lowerBound] } ?? line
        }.joined(separator: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    static func sources(_ folders: [String]) throws -> [String: String] {
        var files: [String: String] = [:]
        for folder in folders {
            let url = Rig.packageRoot.appendingPathComponent(folder)
            for name in try FileManager.default.contentsOfDirectory(atPath: url.path) where name.hasSuffix(".swift") {
                files[folder + "/" + name] = try String(contentsOf: url.appendingPathComponent(name), encoding: .utf8)
            }
        }
        return files
    }

    /// The code of a hint's last level, as it is read from the folders of `fixedIn`.
    static func quoted(_ hint: Case) throws -> [String] {
        try hint.text.hints.code.map { try $0.quoted(from: hint.fixedIn.map(Rig.packageRoot.appendingPathComponent)) }
    }

    @Test(arguments: cases)
    func eachHintPointsAtRealCodeAndQuotesTheFix(_ hint: Case) throws {
        let hints = hint.text.hints
        #expect(!hints.question.isEmpty && hints.question.contains("?"), "level 1 asks a question")
        #expect(!hints.api.isEmpty && !hints.code.isEmpty)
        // The code is the fixing step's: each excerpt is read from its folders.
        let quoted = try Self.quoted(hint)
        // Level 1 gives no code away: no excerpt of level 3 is in the question.
        for snippet in quoted { #expect(!hints.question.contains(snippet)) }

        let looked = try Self.sources(hint.lookIn).filter { $0.key.hasSuffix("/" + hints.place.file) }
        #expect(!looked.isEmpty, "\(hints.place.file) is in none of \(hint.lookIn)")
        #expect(
            looked.values.contains { $0.contains(hints.place.name) },
            "\(hints.place) is not in \(hint.lookIn)")
    }

    /// `lessons hint` reads each excerpt from the folders of the step it names as the fix, for every bug of every
    /// exercise: the same code as above, and found.
    @Test func everyExercisesHintsAreReadFromTheStepTheyName() throws {
        for exercise in ExerciseCatalog.all {
            for bug in exercise.bugs {
                let step = exercise.fixingStep(bug)
                let folders = Exercise.codeFolders(ofStep: step, root: Rig.packageRoot)
                for excerpt in bug.hints.code {
                    #expect(throws: Never.self, "exercise \(exercise.number), \(bug.name), step \(step)") {
                        try excerpt.quoted(from: folders)
                    }
                }
            }
        }
    }

    /// `DispatchQueue.global().sync` in `cellForRowAt`: GCD runs the block on
    /// the calling thread, and the main queue waits for it all the same. The
    /// check says where the requests were made, and its hint names the hop.
    @Test func aSyncHopIsSaidToStillWaitOnTheMainQueue() async throws {
        let results = await ExerciseProof.imageList(2, SyncHopController.self)
        let freeze = try #require(results.first { $0.bug == "downloads freeze the main queue" })
        #expect(!freeze.passed)
        #expect(freeze.measured.contains("40 of 40 requests made on the main queue's thread"), "\(freeze.measured)")
        #expect(freeze.hint.contains("`DispatchQueue.global().sync` is still waited for"))
        // Step 2's fix makes none there.
        let solved = await ExerciseProof.imageList(2, Lesson02AsyncPlaceholder.AppsViewController.self)
        let fixed = try #require(solved.first { $0.bug == freeze.bug })
        #expect(fixed.passed && fixed.measured.contains("0 of 48 requests made on the main queue's thread"))
    }

    /// A failed check prints the first level only: a question and where to look, no code.
    @Test func aFailedCheckNudgesAndLeavesTheCodeToTheLastLevel() async throws {
        let results = await ExerciseProof.imageList(2, Lesson01SyncLoad.AppsViewController.self)
        let rendered = results.rendered(exercise: 2)
        for bug in KnownBug.all.prefix(2) {
            #expect(rendered.contains(bug.text.hints.question))
            let quoted = try bug.text.hints.code.map {
                try $0.quoted(from: Exercise.codeFolders(ofStep: bug.fixedIn, root: Rig.packageRoot))
            }
            for snippet in quoted { #expect(!rendered.contains(snippet)) }
        }
    }
}

/// Exercise 2 "fixed" with a hop: the fetch in `DispatchQueue.global().sync`,
/// which waits until the block has run.
final class SyncHopController: Lesson01SyncLoad.AppsViewController {
    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "app", for: indexPath)
        let app = apps[indexPath.row]
        cell.textLabel.text = app.name
        cell.detailTextLabel.text = app.download
        cell.imageView.image = Image.placeholder
        let network = self.network
        let data = DispatchQueue.global().sync { URL(string: app.icon).flatMap { try? network.data(contentsOf: $0) } }
        cell.imageView.image = data.flatMap { Image(data: $0) }
        return cell
    }
}
