import Foundation
import SlowNetwork
import TableKit
import Testing

@testable import Lesson05OperationPool
@testable import Lesson06SandboxCache
@testable import LessonKit

/// The tutorials' own slips that the lesson texts name, each played as a
/// variant of the step that names it, and measured beside the step's code on
/// the same scenario.
@Suite struct TutorialBugVariantTests {
    /// Tutorial 002 shows the file it found and downloads the icon anyway.
    @Test func tutorial002DownloadsAnIconItFoundOnDisk() async {
        let step6 = await SharedRuns.shared.result(Lesson06SandboxCache.AppsViewController.self, .relaunch).report
        let tutorial = await SharedRuns.shared.result(DiskHitDownloadsViewController.self, .relaunch).report
        #expect(step6.requestsAfterRelaunch == 0)
        // As many as the queue runs at once, by the time every row shows its icon and the run ends.
        #expect(tutorial.requestsAfterRelaunch == 3)
        // Nothing on the screen tells them apart: both show every icon, from disk.
        for report in [step6, tutorial] {
            #expect(report.ownIconsAtEnd == 8 && report.visibleRowsAtEnd == 8 && report.diskCacheFiles == 8)
        }
        // Given the time, it fetches every icon it had on disk: the 8 of the first screen, on top of the 10
        // rows further down that both must download.
        let scrolled = await SharedRuns.shared.result(Lesson06SandboxCache.AppsViewController.self, .relaunchThenScrollBack).report
        let scrolledTutorial =
            await SharedRuns.shared.result(DiskHitDownloadsViewController.self, .relaunchThenScrollBack).report
        #expect(scrolled.requestsAfterRelaunch == 10)
        #expect(scrolledTutorial.requestsAfterRelaunch == 18)
    }

    /// Tutorial 003 shows the file it found and does not keep the image: the
    /// way back to the top reads the first screen's files again.
    @Test func tutorial003ReadsTheFileAgainEachTimeTheRowIsShown() async {
        let step6 = await SharedRuns.shared.result(Lesson06SandboxCache.AppsViewController.self, .relaunchThenScrollBack).report
        let tutorial = await SharedRuns.shared.result(DiskHitNotKeptViewController.self, .relaunchThenScrollBack).report
        #expect(step6.diskReads == 8)
        #expect(tutorial.diskReads == 16)
        // The same traffic and the same screen: only the disk sees the difference.
        #expect(step6.requests == 18 && tutorial.requests == 18)
        #expect(tutorial.ownIconsAtEnd == 8 && tutorial.visibleRowsAtEnd == 8)
    }

    /// Tutorial 002 encodes the image again and writes its file on the main
    /// queue, beside the reload: the seam sees each file put in place there,
    /// and how long the block that wrote it had held the main queue by then.
    @Test func tutorial002WritesItsFilesOnTheMainQueue() async throws {
        let step6 = await SharedRuns.shared.result(Lesson06SandboxCache.AppsViewController.self, .offlineRelaunch).report
        let tutorial = await SharedRuns.shared.result(WriteOnMainQueueViewController.self, .offlineRelaunch).report
        #expect(step6.mainQueueFileWrites == 0 && step6.mainQueueWriteStallWallMs == 0)
        #expect(tutorial.mainQueueFileWrites == 8 && tutorial.mainQueueWriteStallWallMs > 0)
        // The same files, found again after the relaunch: only the main queue's time tells them apart.
        #expect(step6.diskCacheFiles == 8 && tutorial.diskCacheFiles == 8)
        #expect(step6.ownIconsAtEnd == 8 && tutorial.ownIconsAtEnd == 8)
        #expect(WriteOnMainQueueViewController.encoded(try #require(Image(data: Self.icon))) == Self.icon)
        // Its summary does not say the main queue never stalled beside the stall its writes took.
        #expect(!tutorial.summary.contains("The main queue never stalled"))
        #expect(tutorial.summary.contains("On the story clock the main queue never stalled"))
        #expect(step6.summary.contains("The main queue never stalled"))
    }

    /// A 1×1 binary PPM, the icons' format.
    static let icon = Data("P6\n1 1\n255\n".utf8) + Data([200, 100, 50])

    /// The watch counts what the app reads, and says nothing rather than a
    /// wrong count when it cannot follow the folder.
    @Test func theDiskReadWatchCountsReadsAndGivesUpWhenTheFolderGoes() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("disk-read-watch-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("icon.ppm")
        try Data("P6".utf8).write(to: file, options: .atomic)
        let watch = DiskReadWatch(folder: folder)
        _ = try Data(contentsOf: file)
        _ = try Data(contentsOf: file)
        _ = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        try Data("P6 again".utf8).write(to: folder.appendingPathComponent("other.ppm"), options: .atomic)
        #expect(watch.reads == 2)
        try FileManager.default.removeItem(at: folder)
        #expect(watch.reads == nil)
        #expect(DiskReadWatch(folder: folder).reads == nil)
    }

    /// inotify watches one folder: the watch follows the folders under it too, those there at the start and one
    /// made after (a library's `Caches/images`), and keeps each read by file with whose icon the file held.
    @Test func theDiskReadWatchSeesReadsInSubfoldersAndWhoseIconEachHeld() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("disk-read-watch-\(UUID())")
        let manager = FileManager.default
        try manager.createDirectory(at: folder.appendingPathComponent("images"), withIntermediateDirectories: true)
        defer { try? manager.removeItem(at: folder) }
        let icons = ["https://example.com/a/icon.png", "https://example.com/b/icon.png"]
        let first = folder.appendingPathComponent("images/icon.png")
        try IconArt.ppm(for: icons[0]).write(to: first, options: .atomic)
        let whose = { (bytes: Data) -> [Int]? in
            icons.indices.filter { IconArt.ppm(for: icons[$0]) == bytes }
        }
        let watch = DiskReadWatch(folder: folder, whose: whose)
        let later = folder.appendingPathComponent("later/deeper")
        try manager.createDirectory(at: later, withIntermediateDirectories: true)
        watch.drain()
        let second = folder.appendingPathComponent("later/deeper/icon.png")
        try IconArt.ppm(for: icons[1]).write(to: second, options: .atomic)
        _ = try Data(contentsOf: first)
        _ = try Data(contentsOf: second)
        _ = try Data(contentsOf: second)
        #expect(watch.reads == 3)
        #expect(
            watch.readFiles
                == [
                    DiskReadFile(file: "images/icon.png", rows: [0], reads: 1),
                    DiskReadFile(file: "later/deeper/icon.png", rows: [1], reads: 2),
                ])
    }

    /// A library-style loader keeps its files in `Caches/images`: after the relaunch each row's icon is read from
    /// its own file there, and the report says which (the acceptance controller, `AcceptedEscapedKeyLoader`).
    @Test func aLoadersReadsInASubfolderAreSeenRowByRow() async throws {
        let report = await SharedRuns.shared.result(EscapedKeyLoaderController.self, .relaunch).report
        #expect(report.diskReads == 8)
        let files = try #require(report.diskReadFiles)
        #expect(files.count == 8 && files.allSatisfy { $0.file.hasPrefix("images/") && $0.reads == 1 })
        #expect(files.flatMap(\.rows).sorted() == Array(0..<8))
    }

    /// A step without a disk cache has no folder to watch.
    @Test func aStepWithoutADiskCacheReportsNoDiskReads() async {
        let step5 = await SharedRuns.shared.result(Lesson05OperationPool.AppsViewController.self, .relaunch).report
        #expect(step5.diskReads == nil)
    }
}
