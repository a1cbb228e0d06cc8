import Foundation
import HostOS
import SlowNetwork

/// A private copy of a `--catalog` file, for the length of one run.
///
/// On a phone the app's plist lives in its bundle and never changes under
/// it; a learner's file can be edited or deleted while a run plays, and the
/// app reads it again at every launch (a relaunch scenario reads it twice).
/// So the run reads a copy of the bytes that were checked: every launch sees
/// the same rows, whatever happens to the file meanwhile.
struct CatalogSnapshot {
    /// The catalog, its `source` the copy.
    let catalog: AppCatalog
    private let copy: URL?

    /// Reads and checks the file (errors name it, not the copy), then copies it.
    init(path: String) throws {
        let file = URL(fileURLWithPath: path)
        let data = try AppCatalog.read(file)
        let entries = try AppCatalog.entries(in: data, file: file)
        Self.removeAbandonedCopies()
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(Self.prefix)\(HostProcess.id)-\(UUID().uuidString).plist")
        do {
            try data.write(to: copy)
            ExitCleanup.removeOnExit(copy.path)
            self.copy = copy
            catalog = AppCatalog(source: copy, entries: entries)
        } catch {
            // No room for a copy: the file itself will do, as it did before copies.
            self.copy = nil
            catalog = AppCatalog(source: file, entries: entries)
        }
    }

    /// The catalog this run's process read before a relaunch replaced it (`CarriedLaunch`, the PID the same):
    /// its copy, now this process's to remove; or, when no copy could be made, the learner's file, never removed.
    init(takingOver path: String) throws {
        let file = URL(fileURLWithPath: path)
        catalog = AppCatalog(source: file, entries: try AppCatalog.entries(in: try AppCatalog.read(file), file: file))
        copy = file.lastPathComponent.hasPrefix(Self.prefix) ? file : nil
        if let copy { ExitCleanup.removeOnExit(copy.path) }
    }

    /// The start of every copy's name; the owner's process id follows.
    static let prefix = "OperationLessons-catalog-"

    /// Removes the copies of runs that ended without removing theirs (killed
    /// by SIGKILL: a million-row catalog's copy is 88 MB): a copy whose owner
    /// is gone, or, named before copies carried their owner, a day old.
    static func removeAbandonedCopies() {
        let folder = FileManager.default.temporaryDirectory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".plist") {
            let copy = folder.appendingPathComponent(name)
            let abandoned: Bool
            if let owner = pid_t(name.dropFirst(prefix.count).prefix { $0 != "-" }) {
                // EPERM: another user's run, still going.
                abandoned = HostProcess.isGone(owner)
            } else {
                let modified = (try? copy.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate
                abandoned = modified.map { Date().timeIntervalSince($0) > 24 * 3600 } ?? false
            }
            if abandoned { try? FileManager.default.removeItem(at: copy) }
        }
    }

    func remove() {
        if let copy { try? FileManager.default.removeItem(at: copy) }
    }
}
