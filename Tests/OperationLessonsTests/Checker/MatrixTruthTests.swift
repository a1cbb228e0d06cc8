import Foundation
import LessonChecks
import LessonKit
import Testing

@testable import Lesson01SyncLoad
@testable import Lesson07CustomOperation

/// The bug matrix shows no ✓ for a bug whose situation never arose in the
/// run: a step that writes no file cannot name two icons' files alike, and
/// its cell says "–", with why under the table, as the check says "not measured".
@Suite struct MatrixTruthTests {
    static let sharedFile = "icons whose URLs end alike share one file on disk"

    /// A relaunch run: `files` in the Caches folder for 8 icons, no frame with another row's icon.
    static func relaunch(files: Int) -> Report {
        var report = Report()
        report.uniqueURLs = 8
        report.diskCacheFiles = files
        report.visibleRowsAtEnd = 8
        report.ownIconsAtEnd = 8
        return report
    }

    @Test func aBugWhoseSituationNeverAroseIsNotMeasuredInTheMatrix() throws {
        let bug = try #require(KnownBug.named(Self.sharedFile))
        let steps = [5, 6].compactMap(LessonCatalog.entry)
        for markdown in [false, true] {
            let text = BugMatrix.render(bugs: [bug], steps: steps, markdown: markdown) { run in
                .measured(Self.relaunch(files: run.lesson == 5 ? 0 : 8))
            }
            let row = try #require(text.split(separator: "\n").first { $0.contains(Self.sharedFile) })
            // Step 5's cell is –; step 6's, which writes a file per icon, ✓ and the mark of the fixing step.
            #expect(row.components(separatedBy: "✓").count == 2 && row.contains("–"), "\(row)")
            let dash = try #require(row.range(of: "–")), tick = try #require(row.range(of: "✓ 0"))
            #expect(dash.lowerBound < tick.lowerBound, "\(row)")
            #expect(
                text.hasSuffix(
                    "– \(Self.sharedFile), step 05: not measured: no file was written to the Caches folder (0 files "
                        + "on disk for 8 icons), so no two icons could share one."))
        }
        #expect(bug.verdict(Self.relaunch(files: 0)) == .notMeasured)
        #expect(bug.verdict(Self.relaunch(files: 8)) == .gone(0))
    }

    /// The check and the matrix read the same situation: exercise 6 on a
    /// relaunch run that wrote nothing says "not measured" for the same reason.
    @Test func theCheckSaysWhyTheMatrixDoes() throws {
        let bug = try #require(KnownBug.named(Self.sharedFile))
        let result = ImageListChecks.check(bug, reports: ["relaunch": Self.relaunch(files: 0)], exercise: 6)
        #expect(!result.passed && !result.wasMeasured)
        #expect(result.measured == "not measured: " + (bug.whyNotMeasured(Self.relaunch(files: 0)) ?? "?"))
    }

    /// Step 1 downloads on the main queue, where the memory warning is
    /// delivered too: no download is ever under way at it, so none can
    /// deliver after it, and the matrix and the check say "not measured".
    @Test func noDownloadUnderWayAtTheWarningIsNotMeasured() async throws {
        let bug = try #require(KnownBug.named("downloads under way at a memory warning deliver after it"))
        let step1 = await SharedRuns.shared.result(Lesson01SyncLoad.AppsViewController.self, bug.scenario).report
        #expect(step1.staleDeliveries == 0 && step1.iconRequests.underWayAtWarnings == 0)
        #expect(bug.verdict(step1) == .notMeasured)
        let result = ImageListChecks.check(bug, reports: [bug.scenario.name: step1], exercise: 7)
        #expect(
            !result.wasMeasured
                && result.measured
                    == "not measured: no download was under way when the memory warning came, so none could deliver "
                    + "after it")
        // Step 7 has downloads under way at the warning, and they deliver nothing.
        let step7 = await SharedRuns.shared.result(Lesson07CustomOperation.AppsViewController.self, bug.scenario).report
        #expect(step7.iconRequests.underWayAtWarnings > 0)
        #expect(bug.verdict(step7) == .gone(0))
    }

    /// Step 1's downloads are over before the user can leave: nothing is out
    /// to keep its controller, so "freed" says nothing. A controller kept with
    /// nothing out is still kept (on Linux a `completionBlock` holds it for good).
    @Test func aControllerFreedWithNothingOutIsNotMeasured() async throws {
        let bug = try #require(KnownBug.named("the controller is never freed while its downloads run"))
        let step1 = await SharedRuns.shared.result(Lesson01SyncLoad.AppsViewController.self, bug.scenario).report
        #expect(step1.controllerFreed && step1.requests > 0 && step1.iconRequests.inFlightAtEnd == 0)
        #expect(bug.verdict(step1) == .notMeasured)
        #expect(
            bug.whyNotMeasured(step1) == "no download was still out when the user left, so none could keep the controller")
        let step7 = await SharedRuns.shared.result(Lesson07CustomOperation.AppsViewController.self, bug.scenario).report
        #expect(step7.iconRequests.inFlightAtEnd > 0 && bug.verdict(step7) == .gone(1))
        var keptWithNothingOut = step1
        keptWithNothingOut.controllerFreed = false
        #expect(bug.verdict(keptWithNothingOut) == .present(0))
    }
}
