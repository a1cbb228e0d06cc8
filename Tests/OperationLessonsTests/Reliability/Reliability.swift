import Foundation
import LessonKit
import SlowNetwork
import TableKit
import Testing

/// What the fault matrix, the bad-input tests and the stress run check after
/// every run of a step that claims to be fixed: the invariants of
/// docs/reliability.md, each one a number of the run or a look at the disk.
enum Reliability {
    /// The disk-cache file name steps 6 and 7 give an icon (FNV-1a of the whole URL, in hex).
    static func cacheFileName(for icon: String) -> String {
        String(format: "%016llx.ppm", StableHash.fnv1a(icon))
    }

    /// Scroll a screen and a half away and back, then wait: the user's way of
    /// asking again for a row whose download failed or was cancelled. Steps 5–7
    /// retry an icon only when its row is shown again (the tutorials have no
    /// reachability observer), so "every visible row ends with its own icon"
    /// holds after the rows are shown again, `times` times at most.
    static func showAgain(_ row: Double, times: Int) -> [Scenario.Step] {
        let away = row >= 12 ? row - 12 : row + 12
        return (0..<times).flatMap { _ in
            // The settle ends as soon as every visible row shows its icon, or
            // after 40 s: long enough for a queue of downloads held back by the drags.
            [Scenario.Step.drag(toRow: away, seconds: 0.3), .drag(toRow: row, seconds: 0.3), .settle(timeout: 40)]
        }
    }

    static func options(failRate: Double = 0, seed: UInt64 = 1) -> LessonOptions {
        var options = LessonOptions()
        options.failRate = failRate
        options.seed = seed
        return options
    }

    /// The invariants every run of steps 5–7 must keep, whatever was injected.
    static func checkInvariants(
        _ report: Report, step: Int, duplicatesAllowed: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(report.mainThreadViolations == 0, "main-queue violations", sourceLocation: sourceLocation)
        if step >= 3 {
            #expect(report.wrongImageFrames == 0, "frames with another row's icon", sourceLocation: sourceLocation)
        }
        if step >= 5 {
            if !duplicatesAllowed {
                #expect(report.duplicateRequests == 0, "duplicate requests in flight", sourceLocation: sourceLocation)
            }
            #expect(report.controllerFreed, "the controller outlived its screen", sourceLocation: sourceLocation)
        }
    }

    /// Everything in `sandbox` (but the files it was given: `ignoring`) is a file directly in its Caches folder, named
    /// by an icon's hash and holding exactly that icon's bytes (so it decodes).
    /// Returns the number of cache files.
    @discardableResult
    static func checkDisk(
        _ sandbox: Lesson06Tests.Sandbox, catalog: AppCatalog, ignoring: Set<String> = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Int {
        let iconByName = Dictionary(
            catalog.entries.map { (cacheFileName(for: $0.icon), $0.icon) }, uniquingKeysWith: { first, _ in first })
        var count = 0
        for file in sandbox.files() where !ignoring.contains(file) {
            guard file.hasPrefix("Library/Caches/"), !file.dropFirst("Library/Caches/".count).contains("/") else {
                Issue.record("\(file) is outside the Caches folder", sourceLocation: sourceLocation)
                continue
            }
            let name = String(file.dropFirst("Library/Caches/".count))
            // Foundation's `.atomic` write goes through a temporary file renamed
            // into place; a download that ended as the run did may still be
            // writing one. It is not a cache file (no icon's name), nor read.
            if name.hasPrefix(".dat.nosync") { continue }
            guard let icon = iconByName[name] else {
                Issue.record("\(name) is not the cache file of any icon", sourceLocation: sourceLocation)
                continue
            }
            let bytes = (try? Data(contentsOf: sandbox.root.appendingPathComponent(file))) ?? Data()
            #expect(Image.fingerprint(of: bytes) != nil, "\(name) does not decode", sourceLocation: sourceLocation)
            #expect(bytes == IconArt.ppm(for: icon), "\(name) is not \(icon)'s icon", sourceLocation: sourceLocation)
            count += 1
        }
        return count
    }
}
