import Foundation
import LessonChecks
import LessonKit
import Testing

/// `lessons hint`'s "Look:" line names a place only where the learner's
/// files have it, and otherwise by its role: a workbench whose controller
/// downloads in `downloads.addOperation` and never reloads a row is not
/// sent to `queue.addOperation` or `reloadRows`.
@Suite struct HintLookTests {
    /// Step 4's work under a learner's own names: a queue called `downloads`,
    /// the icons in `icons`, the image set on the captured cell, no reload.
    static let renamedController = """
        final class IconListController: TableViewController {
            lazy var downloads = OperationQueue()
            var icons: [String: Image] = [:]

            override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
                let cell = tableView.dequeueReusableCell(withIdentifier: "app", for: indexPath)
                cell.imageView.image = Image.placeholder
                downloads.addOperation {
                    OperationQueue.main.addOperation { cell.imageView.image = nil }
                }
                return cell
            }
        }
        """

    @Test func theLookLineNamesOnlyWhatTheLearnersFilesHave() async throws {
        let root = try ExerciseCommandTests.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let code = root.appendingPathComponent(WorkbenchLayout.code)
        try FileManager.default.removeItem(at: code.appendingPathComponent("AppsViewController.swift"))
        try Self.renamedController.write(
            to: code.appendingPathComponent("IconListController.swift"), atomically: true, encoding: .utf8)
        let hint = try await ExerciseCommandTests.lessons(["hint", "5"], root: root)
        #expect(hint.status == 0, "\(hint.standardError)")
        let looks = hint.standardOutput.split(separator: "\n").filter { $0.hasPrefix("   Look:") }.map {
            $0.dropFirst("   Look:  ".count)
        }
        // Exercise 5's bugs: the duplicate, the offline loop, the kept controller, the data race.
        #expect(
            looks == [
                "where your download starts", "where your download ends", "where your download starts",
                "where your download's icon is kept",
            ])
        // A place the file has is named, in the file that has it.
        let freeze = try await ExerciseCommandTests.lessons(["hint", "2"], root: root)
        #expect(freeze.standardOutput.contains("   Look:  `cellForRowAt` in IconListController.swift\n"))
    }
}

/// When the last check recognised another shape than the bug's own, the
/// hint's first level is what the check saw and its advice, not the bug's
/// own question: code that has a pool is not asked how it could know a
/// download is under way.
@Suite struct HintFollowsTheMeasurementTests {
    @Test func aDiagnosedFailureIsHintedByWhatWasSeen() throws {
        let bug = try #require(KnownBug.named("a slow icon scrolled away and back is downloaded twice at once"))
        let seen = CheckResult(
            bug: bug.name, passed: false, measured: "0 duplicates in flight · 10 requests for 9 icons",
            expected: bug.text.expected, hint: "Row 8's first download brought its icon, yet no row showed it.",
            isSafeguard: false, diagnosis: "row 8's icon was downloaded again")
        let lines = HintText.bug(bug.text, level: 1, lastCheck: seen, number: "1. ", step: "step 5", fix: [])
        #expect(lines.contains("   So:    Row 8's first download brought its icon, yet no row showed it."))
        #expect(!lines.contains { $0.hasPrefix("   Ask:") || $0.hasPrefix("   Look:") }, "\(lines)")
        // Failed in the bug's own shape, the bug's own question.
        let own = CheckResult(
            bug: bug.name, passed: false, measured: "1 duplicate in flight", expected: bug.text.expected,
            hint: bug.text.hint, isSafeguard: false)
        let ownLines = HintText.bug(bug.text, level: 1, lastCheck: own, number: "1. ", step: "step 5", fix: [])
        #expect(ownLines.contains("   Ask:   \(bug.text.hints.question)"))
    }
}
