import Foundation

/// A step's Caches folder as the harness sees it from outside: what counts as
/// a cache file, and the harness's own chores there (`--clear-cache`, and the
/// clean-up of writes a killed run left half done).
public enum CacheFolder {
    /// Foundation's `.atomic` write goes through a temporary file in the same
    /// folder (`.dat.nosync` and a random suffix on Linux), renamed into place
    /// when whole. A run killed between the two leaves it behind.
    public static let unfinishedWritePrefix = ".dat.nosync"

    /// How old an unfinished write must be before a launch removes it. Another
    /// run on the same folder may be writing one this very moment (a write
    /// takes milliseconds); an older one belongs to no running write. Git
    /// prunes its temporary files by age for the same reason.
    public static let abandonedAfter: TimeInterval = 60

    /// The cache files in `folder` and in the folders under it (a library's
    /// `images/`), as paths from `folder`: every entry but unfinished writes and folders.
    public static func files(in folder: URL) -> [String] {
        let paths = (try? FileManager.default.subpathsOfDirectory(atPath: folder.path)) ?? []
        return paths.filter { path in
            var isFolder: ObjCBool = false
            let exists = FileManager.default.fileExists(
                atPath: folder.appendingPathComponent(path).path, isDirectory: &isFolder)
            let name = path.split(separator: "/").last.map(String.init) ?? path
            return !name.hasPrefix(unfinishedWritePrefix) && !(exists && isFolder.boolValue)
        }
    }

    /// Removes the unfinished writes older than `abandonedAfter`; returns how many went.
    @discardableResult
    public static func removeAbandonedWrites(in folder: URL, now: Date = Date()) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var removed = 0
        for name in names where name.hasPrefix(unfinishedWritePrefix) {
            let file = folder.appendingPathComponent(name)
            let attributes = try? FileManager.default.attributesOfItem(atPath: file.path)
            guard let modified = attributes?[.modificationDate] as? Date,
                now.timeIntervalSince(modified) > abandonedAfter
            else { continue }
            if (try? FileManager.default.removeItem(at: file)) != nil { removed += 1 }
        }
        return removed
    }

    /// Empties `folder` (`--clear-cache`) and checks that it worked: nil when
    /// the folder is gone or holds no cache file (one that cannot be removed
    /// is empty all the same), else what went wrong and what is still there.
    public static func clear(_ folder: URL) -> String? {
        guard FileManager.default.fileExists(atPath: folder.path) else { return nil }
        var reason = ""
        do {
            try FileManager.default.removeItem(at: folder)
        } catch {
            reason = ": " + SystemErrorText.describe(error)
        }
        let left = files(in: folder).count
        guard FileManager.default.fileExists(atPath: folder.path), left > 0 else { return nil }
        return "cannot empty \(folder.path)\(reason) (\(left) file\(left == 1 ? "" : "s") still there)"
    }
}
