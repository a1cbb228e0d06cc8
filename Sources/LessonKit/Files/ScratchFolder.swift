import Foundation
import HarnessSync

/// Temporary folders that must not outlive the run that made them: a child's
/// own Caches folder, a child's collected output, generated catalogs.
///
/// Each is removed by whoever made it when it is done; the ones still here
/// when the process is ended by a signal are removed by `ChildProcess`'s
/// signal handling (`ChildProcess.endChildrenOnSignals`), so an interrupted
/// scoreboard leaves nothing in the temporary directory.
public enum ScratchFolder {
    private static let lock = Locked(.seen)
    nonisolated(unsafe) private static var live: Set<String> = []

    /// A new, empty folder in the temporary directory, its name starting with `prefix`.
    public static func make(_ prefix: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        lock.withLock { _ = live.insert(folder.path) }
        return folder
    }

    /// Removes the folder and everything in it.
    public static func remove(_ folder: URL) {
        try? FileManager.default.removeItem(at: folder)
        lock.withLock { _ = live.remove(folder.path) }
    }

    /// Removes every folder still here (the process is about to end).
    static func removeAll() {
        for path in lock.withLock({ live }) { try? FileManager.default.removeItem(atPath: path) }
    }
}
