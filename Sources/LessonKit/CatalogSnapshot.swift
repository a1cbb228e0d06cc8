import Foundation
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
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent(
            "OperationLessons-catalog-\(UUID().uuidString).plist")
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

    func remove() {
        if let copy { try? FileManager.default.removeItem(at: copy) }
    }
}
