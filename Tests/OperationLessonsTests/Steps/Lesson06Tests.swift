import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import SlowNetwork
import Testing

@testable import Lesson05OperationPool
@testable import Lesson06SandboxCache

/// Step 5 → 6: a disk cache that survives a relaunch; its own trap (file names
/// from the URL's last path component) shown and fixed; and whatever the URL
/// or the disk does, no file outside the Caches folder and no crash.
@Suite struct Lesson06Tests {
    /// A fresh folder standing for the app's sandbox; its `Library/Caches` is
    /// the cache folder, two levels down, so that even `../../x` stays inside.
    final class Sandbox {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("lesson06-\(UUID().uuidString)")
        var caches: URL { root.appendingPathComponent("Library/Caches") }

        init() throws {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        }

        deinit {
            try? FileManager.default.removeItem(at: root)
        }

        /// Every file under the sandbox, as paths relative to it.
        func files() -> [String] {
            let enumerator = FileManager.default.enumerator(atPath: root.path)
            var files: [String] = []
            while let path = enumerator?.nextObject() as? String {
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(
                    atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory)
                if !isDirectory.boolValue { files.append(path) }
            }
            return files.sorted()
        }
    }

    static func run(
        _ controller: any LessonController.Type, _ scenario: Scenario, caches: URL,
        catalog: AppCatalog = .bundled(), offline: Bool = false
    ) async -> ScenarioResult {
        var options = LessonOptions()
        options.offline = offline
        return await ScenarioRunner.run(
            NewProcessRuns.routed(
                ScenarioSetup(
                    lesson: "06", title: "sandbox cache", controller: controller, scenario: scenario, options: options,
                    catalog: catalog, cachesDirectory: caches)))
    }

    @Test func aRelaunchDownloadsNothingAgain() async throws {
        let step5 = await SharedRuns.shared.result(Lesson05OperationPool.AppsViewController.self, .relaunch).report
        let step6 = await SharedRuns.shared.result(Lesson06SandboxCache.AppsViewController.self, .relaunch).report
        // Step 5 keeps icons in memory only: the relaunched app downloads them all again.
        #expect(step5.requestsAfterRelaunch == 8 && step5.uniqueURLs == 8)
        #expect(step6.requestsAfterRelaunch == 0)
        #expect(step6.ownIconsAtEnd == 8 && step6.visibleRowsAtEnd == 8)
        #expect(step6.diskCacheFiles == 8)
    }

    @Test func anOfflineRelaunchShowsEveryIcon() async throws {
        let step5 = await SharedRuns.shared.result(Lesson05OperationPool.AppsViewController.self, .offlineRelaunch)
        let step6 = await SharedRuns.shared.result(Lesson06SandboxCache.AppsViewController.self, .offlineRelaunch)
        // Step 5 relaunched offline has nothing to show but placeholders.
        #expect(step5.report.ownIconsAtEnd == 0)
        #expect(step6.report.ownIconsAtEnd == step6.report.visibleRowsAtEnd)
        #expect(step6.report.requestsAfterRelaunch == 0)
    }

    /// What a learner does: run the step, run it again, then run it offline.
    @Test func secondRunDownloadsNothingAndAThirdOfflineRunShowsEverything() async throws {
        let sandbox = try Sandbox()
        let first = await Self.run(Lesson06SandboxCache.AppsViewController.self, .standard, caches: sandbox.caches)
        let second = await Self.run(Lesson06SandboxCache.AppsViewController.self, .standard, caches: sandbox.caches)
        let third = await Self.run(
            Lesson06SandboxCache.AppsViewController.self, .standard, caches: sandbox.caches, offline: true)
        #expect(first.report.requests == 28 && first.report.uniqueURLs == 28)
        #expect(first.report.diskCacheFiles == 28)
        #expect(second.report.requests == 0)
        #expect(third.report.requests == 0)
        #expect(third.report.ownIconsAtEnd == third.report.visibleRowsAtEnd)
        #expect(third.report.placeholderFrames == 0)
    }

    /// Rows 0, 1, 2 and 6 are all `…/icon.png`.
    @Test func lastComponentNamesCollideAfterARelaunchHashedNamesNever() async throws {
        let collided = await SharedRuns.shared.result(LastComponentNamesViewController.self, .relaunch).report
        let fixed = await SharedRuns.shared.result(Lesson06SandboxCache.AppsViewController.self, .relaunch).report
        // icon.png is one file for four rows: after the relaunch three show another row's icon.
        #expect(collided.wrongImageFrames == 2)
        #expect(collided.ownIconsAtEnd == collided.visibleRowsAtEnd - 3)
        #expect(collided.diskCacheFiles == collided.uniqueURLs - 3)
        #expect(fixed.wrongImageFrames == 0)
        #expect(fixed.ownIconsAtEnd == fixed.visibleRowsAtEnd)
        #expect(fixed.diskCacheFiles == fixed.uniqueURLs)
    }

    /// URLs a server (or an attacker) could put in the catalog.
    static let craftedIcons = [
        "https://cdn.example.com/apps/..%2Fescaped.ppm",
        "https://cdn.example.com/apps/..%2F..%2Fescaped-further.ppm",
        "https://cdn.example.com/apps/%2E%2E",
        "https://cdn.example.com/..",
        "https://cdn.example.com/",
        "https://cdn.example.com/apps/%2Ftmp%2Fabsolute.ppm",
        "https://cdn.example.com/a/b?x=../../y",
        "https://cdn.example.com/apps/" + String(repeating: "long", count: 80) + ".png",
        "https://cdn.example.com/apps/图标.png",
        "not a url at all",
    ]

    static func craftedCatalog(in sandbox: Sandbox) throws -> AppCatalog {
        let entries = craftedIcons.enumerated().map { index, icon in
            AppEntry(name: "App \(index)", icon: icon, download: "\(index)万")
        }
        let file = sandbox.root.appendingPathComponent("crafted.plist")
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        try encoder.encode(entries).write(to: file)
        return AppCatalog(source: file, entries: entries)
    }

    @Test func lastComponentNamesWriteOutsideTheCachesFolder() async throws {
        let sandbox = try Sandbox()
        let catalog = try Self.craftedCatalog(in: sandbox)
        _ = await Self.run(LastComponentNamesViewController.self, .standard, caches: sandbox.caches, catalog: catalog)
        let outside = sandbox.files().filter { !$0.hasPrefix("Library/Caches/") && $0 != "crafted.plist" }
        // …/..%2Fescaped.ppm decodes to ../escaped.ppm: out of Caches.
        #expect(outside.contains("Library/escaped.ppm"))
        #expect(outside.contains("escaped-further.ppm"))
    }

    @Test func hashedNamesNeverWriteOutsideTheCachesFolderWhateverTheURL() async throws {
        let sandbox = try Sandbox()
        let catalog = try Self.craftedCatalog(in: sandbox)
        let report = await Self.run(
            Lesson06SandboxCache.AppsViewController.self, .standard, caches: sandbox.caches, catalog: catalog
        ).report
        let files = sandbox.files().filter { $0 != "crafted.plist" }
        #expect(!files.isEmpty)
        for file in files {
            let name = String(file.dropFirst("Library/Caches/".count))
            #expect(file.hasPrefix("Library/Caches/") && !name.contains("/"), "\(file) is not directly in Caches")
        }
        // Every URL that could be fetched got its own file.
        #expect(files.count == report.uniqueURLs)
    }

    @Test(arguments: craftedIcons + AppCatalog.bundled().entries.map(\.icon))
    func aHashedNameIsSixteenHexDigits(icon: String) throws {
        let controller = Self.controller(
            caches: FileManager.default.temporaryDirectory.appendingPathComponent("unused"))
        let name = controller.cacheFileName(for: icon)
        #expect(name.count == 20)
        #expect(name.hasSuffix(".ppm"))
        #expect(name.dropLast(4).allSatisfy { $0.isHexDigit && !$0.isUppercase })
        // The lesson's own FNV-1a is the one the shared modules use (and the published one).
        #expect(name == String(format: "%016llx.ppm", StableHash.fnv1a(icon)))
    }

    @Test func theHashIsFNV1a() {
        let controller = Self.controller(
            caches: FileManager.default.temporaryDirectory.appendingPathComponent("unused"))
        // Published FNV-1a 64-bit test vectors.
        #expect(controller.cacheFileName(for: "") == "cbf29ce484222325.ppm")
        #expect(controller.cacheFileName(for: "a") == "af63dc4c8601ec8c.ppm")
        #expect(controller.cacheFileName(for: "foobar") == "85944171f73967e8.ppm")
        let names = Set(AppCatalog.bundled().entries.map { controller.cacheFileName(for: $0.icon) })
        #expect(names.count == Set(AppCatalog.bundled().entries.map(\.icon)).count)
    }

    static func controller(caches: URL) -> Lesson06SandboxCache.AppsViewController {
        Lesson06SandboxCache.AppsViewController(
            environment: LessonEnvironment(
                network: SlowNetwork(), catalogURL: AppCatalog.bundledURL, cachesDirectory: caches))
    }

    @Test func anUnwritableCachesFolderIsNoCrashJustNoDiskCache() async throws {
        let sandbox = try Sandbox()
        // A regular file where the folder's parent should be: the folder cannot be made.
        let blocker = sandbox.root.appendingPathComponent("not-a-folder")
        try Data("a file".utf8).write(to: blocker)
        let caches = blocker.appendingPathComponent("Caches")
        let report = await Self.run(Lesson06SandboxCache.AppsViewController.self, .relaunch, caches: caches).report
        #expect(report.ownIconsAtEnd == report.visibleRowsAtEnd)
        #expect(report.diskCacheFiles == 0)
        // Nothing on disk, so the relaunch downloads again, as step 5 did.
        #expect(report.requestsAfterRelaunch == report.uniqueURLs)
    }

    @Test func aDamagedCacheFileIsDownloadedAgainAndReplaced() async throws {
        let sandbox = try Sandbox()
        let controller = Self.controller(caches: sandbox.caches)
        let icons = AppCatalog.bundled().entries.map(\.icon)
        try FileManager.default.createDirectory(at: sandbox.caches, withIntermediateDirectories: true)
        // Row 0: garbage. Row 1: a good icon cut in half. Row 3: an empty file.
        try Data("<html>502 Bad Gateway</html>".utf8).write(to: controller.cacheFile(for: icons[0]))
        let good = IconArt.ppm(for: icons[1])
        try good.prefix(good.count / 2).write(to: controller.cacheFile(for: icons[1]))
        try Data().write(to: controller.cacheFile(for: icons[3]))

        let result = await Self.run(Lesson06SandboxCache.AppsViewController.self, .relaunch, caches: sandbox.caches)
        #expect(result.report.ownIconsAtEnd == result.report.visibleRowsAtEnd)
        let requested = Set(result.timeline.requests.map(\.url))
        #expect(requested.isSuperset(of: [icons[0], icons[1], icons[3]]))
        for row in [0, 1, 3] {
            #expect(try Data(contentsOf: controller.cacheFile(for: icons[row])) == IconArt.ppm(for: icons[row]))
        }
    }

    @Test func bytesThatDoNotDecodeAreNeverCached() async throws {
        let sandbox = try Sandbox()
        var scenario = Scenario.relaunch
        scenario.rowRules = [(rows: [0], behavior: .corrupt), (rows: [1], behavior: .truncate)]
        let result = await Self.run(Lesson06SandboxCache.AppsViewController.self, scenario, caches: sandbox.caches)
        let controller = Self.controller(caches: sandbox.caches)
        let icons = AppCatalog.bundled().entries.map(\.icon)
        #expect(!FileManager.default.fileExists(atPath: controller.cacheFile(for: icons[0]).path))
        #expect(!FileManager.default.fileExists(atPath: controller.cacheFile(for: icons[1]).path))
        #expect(result.report.diskCacheFiles == result.report.uniqueURLs - 2)
        // So after the relaunch those two are asked for again; the rest come from disk.
        #expect(result.report.requestsAfterRelaunch == 2)
    }

    /// The harness times `cellForRowAt` from outside: step 6's disk read is in it.
    @Test func theMainQueueDiskReadIsMeasuredFromOutside() async throws {
        let step5 = await SharedRuns.shared.result(Lesson05OperationPool.AppsViewController.self, .relaunch).report
        let step6 = await SharedRuns.shared.result(Lesson06SandboxCache.AppsViewController.self, .relaunch).report
        // Eight rows, each asked for, then again when its download reloads it,
        // before the relaunch and after it; step 6 finds them on disk after it.
        #expect(step5.cellRequests == 32)
        #expect(step6.cellRequests == 24)
        #expect(step6.cellForRowAtWallMs > 0)
    }

    // MARK: exercise 6, the same measures as the learner's checker

    @Test func exercise6IsSolvedByStep6AndNotBeforeIt() async {
        let step5 = await ExerciseProof.imageList(6, Lesson05OperationPool.AppsViewController.self)
        let step6 = await ExerciseProof.imageList(6, Lesson06SandboxCache.AppsViewController.self)
        ExerciseProof.expectEveryBugPresent(step5)
        ExerciseProof.expectSolved(step6)
    }

    /// The tutorials' file names (the URL's last path component) do not pass:
    /// four rows share `icon.png`.
    @Test func exercise6CatchesLastComponentNames() async throws {
        let collided = await ExerciseProof.imageList(6, LastComponentNamesViewController.self)
        let relaunch = try #require(collided.first { $0.bug == "a relaunch downloads every icon again" })
        #expect(!relaunch.passed, "\(relaunch.measured)")
    }
}
