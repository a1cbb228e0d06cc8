import Foundation
import SlowNetwork

/// Catalogs of any length, for measuring how the harness scales: row N is
/// "App N" with its own icon URL (no two rows share a last path component, so
/// a step's disk cache sees as many files as rows).
public enum GeneratedCatalog {
    public static func entries(rows: Int) -> [AppEntry] {
        (0..<rows).map { row in
            AppEntry(
                name: "App \(row)", icon: "https://cdn.example.com/generated/app-\(row).png",
                download: "https://apps.example.com/app-\(row)")
        }
    }

    /// Writes a catalog of `rows` rows as a plist (what `--catalog` and the
    /// lessons' model read) and returns it.
    public static func write(rows: Int, to file: URL) throws -> AppCatalog {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try encoder.encode(entries(rows: rows)).write(to: file, options: .atomic)
        return AppCatalog(source: file, entries: entries(rows: rows))
    }
}
