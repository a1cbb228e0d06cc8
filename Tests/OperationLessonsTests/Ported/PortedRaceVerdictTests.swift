import Foundation
@testable import LessonChecks
import Testing

/// The race verdict on controllers ported from published tutorials, read
/// from what Thread Sanitizer reported of them in a workbench's race run
/// (`lessons check 5`, the race build, `--scenario flick-then-peek`): each
/// stack's first frames, paths under /x. The ported file is the learner's
/// only file, as the check reads it.
@Suite struct PortedRaceVerdictTests {
    /// Kodeco's ClassicPhotos (`PortedClassicPhotos.swift`, its controller
    /// named as the workbench names it): its download writes the row's
    /// `PhotoRecord` on the queue's thread while `cellForRowAt` reads it,
    /// under another name, on the main queue. TSan points the read at the `=`
    /// of `cell.imageView.image = photoDetails.image`.
    static let classicPhotosRace = """
        ==================
        WARNING: ThreadSanitizer: data race (pid=31523)
          Write of size 8 at 0x721000006138 by thread T5:
            #0 $s9Workbench18AppsViewControllerC15ImageDownloaderC4mainyyF /x/Workbench/Sources/Workbench/AppsViewController.swift:59:35 (Workbench+0x3ca2be)
            #1 $s10Foundation14OperationQueueC8_executeyyAA0B0CF <null> (libFoundation.so+0x34112e)

          Previous read of size 8 at 0x721000006138 by thread T4:
            #0 $s9Workbench18AppsViewControllerC05tableC0_12cellForRowAt8TableKit0jC4CellCAF0jC0C_20FoundationEssentials9IndexPathVtF /x/Workbench/Sources/Workbench/AppsViewController.swift:87:30 (Workbench+0x3cb4cc)
            #1 $s8TableKit0A14ViewControllerCAA0aC10DataSourceA2aDP05tableC0_12cellForRowAtAA0aC4CellCAA0aC0C_20FoundationEssentials9IndexPathVtFTW /<compiler-generated> (Workbench+0x391470)
            #2 $s9LessonKit9ActiveRun33_374AEBFFCA50DDCC92B97CCC1C555B5ALLC8asTheAppyyyyXEF /x/Sources/LessonKit/Engine/ScenarioRunner.swift:170:9 (Workbench+0x2ba22b)
            #3 _dispatch_lane_serial_drain crtstuff.c (libdispatch.so+0x2f112)

          Location is heap block of size 64 at 0x721000006100 allocated by thread T4:
            #0 malloc /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:686:5 (Workbench+0xaeb30)
            #1 swift_slowAlloc <null> (libswiftCore.so+0x46fa6e)
            #2 $s9Workbench18AppsViewControllerC11environmentAC13LessonSupport0F11EnvironmentV_tcfcAC11PhotoRecordCSg11SlowNetwork8AppEntryVXEfU_AI20FoundationEssentials3URLVXEfU_ /x/Workbench/Sources/Workbench/AppsViewController.swift:76:78 (Workbench+0x3c5fc5)
            #3 $s9Workbench18AppsViewControllerC11environmentAC13LessonSupport0F11EnvironmentV_tcfcAC11PhotoRecordCSg11SlowNetwork8AppEntryVXEfU_AI20FoundationEssentials3URLVXEfU_TA /<compiler-generated> (Workbench+0x3c89db)
            #4 $sSq3mapyqd_0_Sgqd_0_xqd__YKXEqd__YKs5ErrorRd__Ri_d_0_r0_lF /<compiler-generated> (Workbench+0x148fc5)

        SUMMARY: ThreadSanitizer: data race /x/Workbench/Sources/Workbench/AppsViewController.swift:59:35 in $s9Workbench18AppsViewControllerC15ImageDownloaderC4mainyyF
        """

    static var classicPhotos: LearnerCode {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let text = (try? String(contentsOf: folder.appendingPathComponent("PortedClassicPhotos.swift"), encoding: .utf8))
            ?? ""
        return LearnerCode(files: ["AppsViewController.swift": text])
    }

    /// Two names of one record (`photoRecord` in the operation, `photoDetails`
    /// in `cellForRowAt`) are one property raced on, and a read at an `=` is
    /// of what is assigned, not of the cell's image written there.
    @Test func aRecordReachedByTwoNamesIsNamedByItsProperty() throws {
        let verdict = RaceCheck.judge(errors: Self.classicPhotosRace, crashed: false, code: Self.classicPhotos)
        #expect(!verdict.passed && verdict.wasMeasured)
        #expect(verdict.shape == "a data race on `image` (of a `PhotoRecord`)")
        #expect(
            verdict.measured
                == "1 Thread Sanitizer report (first: Workbench/Sources/Workbench/AppsViewController.swift:59:35)")
        #expect(
            verdict.diagnosis
                == "`image` (of a `PhotoRecord`) written by thread T5, in an operation, at "
                + "Workbench/Sources/Workbench/AppsViewController.swift:59:35 and read on the main queue (thread T4) at "
                + "Workbench/Sources/Workbench/AppsViewController.swift:87:30, with nothing ordering the two")
        #expect(
            verdict.hint
                == "On which queue does your code write `image`, and on which does it read it? Touch it from one queue "
                + "only (hand the result to the main queue, and write it there). Look at AppsViewController.swift:59:35 "
                + "(`ImageDownloader.main(…)`) and AppsViewController.swift:87:30 (`ClassicPhotosController.tableView(…)`).")
    }
}
