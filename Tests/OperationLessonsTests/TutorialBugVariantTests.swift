import Foundation
import LessonKit
import Testing

@testable import Lesson06SandboxCache

/// The tutorials' own slips that the lesson texts name, each played as a
/// variant of the step that names it, and measured beside the step's code on
/// the same scenario.
@Suite struct TutorialBugVariantTests {
    /// Tutorial 002 shows the file it found and downloads the icon anyway:
    /// after a relaunch the screen is complete at once, from disk, and the
    /// network is asked for icons it already has.
    @Test func tutorial002DownloadsAnIconItFoundOnDisk() async {
        let step6 = await SharedRuns.shared.result(AppsViewController.self, .relaunch).report
        let tutorial = await SharedRuns.shared.result(DiskHitDownloadsViewController.self, .relaunch).report
        #expect(step6.requestsAfterRelaunch == 0)
        // As many as the queue runs at once, by the time every row shows its icon and the run ends.
        #expect(tutorial.requestsAfterRelaunch == 3)
        // Nothing on the screen tells them apart: both show every icon, from disk.
        for report in [step6, tutorial] {
            #expect(report.ownIconsAtEnd == 8 && report.visibleRowsAtEnd == 8 && report.diskCacheFiles == 8)
        }
    }
}
