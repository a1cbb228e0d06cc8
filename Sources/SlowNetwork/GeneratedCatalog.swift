import Foundation

extension AppCatalog {
    /// A catalog of `rows` made-up apps, each with its own icon URL, written to
    /// `file` so a controller can load it like the bundled one. For runs that
    /// need more rows than the tutorials' list: stress runs, scaling checks.
    public static func generated(rows: Int, file: URL) throws -> AppCatalog {
        let entries = (0..<rows).map { row in
            AppEntry(
                name: "App \(row)", icon: "https://cdn.example.com/generated/\(row)/icon.png",
                download: "\(row % 9000 + 100)万")
        }
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        try encoder.encode(entries).write(to: file, options: .atomic)
        return AppCatalog(source: file, entries: entries)
    }
}
