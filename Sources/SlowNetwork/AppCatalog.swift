import Foundation
import HostOS

/// One row of the app catalog, as the tutorials' `apps.plist` has it.
///
/// The lessons decode their own model type from the same plist (that decoding
/// is part of step 1); this type is what the harness and the network use to
/// know which icon URL belongs to which row.
public struct AppEntry: Codable, Equatable, Sendable {
    public var name: String
    public var icon: String
    public var download: String

    public init(name: String, icon: String, download: String) {
        self.name = name
        self.icon = icon
        self.download = download
    }
}

/// The app catalog: the list the table view shows.
public struct AppCatalog: Sendable {
    /// Where the plist came from, so errors and reports can name it.
    public let source: URL
    public let entries: [AppEntry]

    /// The plist shipped with the package: dozens of apps, some of whose icon
    /// URLs share their last path component (`…/qq/icon.png`, `…/wechat/icon.png`).
    public static var bundledURL: URL {
        guard let url = Bundle.module.url(forResource: "apps", withExtension: "plist") else {
            preconditionFailure("apps.plist is missing from the SlowNetwork bundle")
        }
        return url
    }

    /// The bundled catalog, read once a process: the file ships with the package and every run reads the same.
    public static func bundled() -> AppCatalog { bundledCatalog }

    private static let bundledCatalog: AppCatalog = {
        do {
            return try load(from: bundledURL)
        } catch {
            preconditionFailure("the bundled catalog is broken: \(error)")
        }
    }()

    /// Reads and validates a catalog plist, throwing an error that names the
    /// file and says what is wrong with it.
    public static func load(from url: URL) throws -> AppCatalog {
        AppCatalog(source: url, entries: try entries(in: try read(url), file: url))
    }

    /// The bytes of a catalog file. A folder, a FIFO or a device is refused by
    /// what it is before anything is read (reading a FIFO would wait for a
    /// writer for ever, reading `/dev/zero` would never end).
    public static func read(_ url: URL) throws(CatalogError) -> Data {
        let info: (kind: HostFiles.Kind, bytes: Int)
        switch HostFiles.status(of: url.path) {
        case .success(let status): info = status
        case .failure(let error): throw CatalogError(file: url, problem: "cannot be read (\(error))")
        }
        switch info.kind {
        case .regular: break
        case .folder: throw CatalogError(file: url, problem: "is a folder, not a catalog file")
        case .fifo: throw CatalogError(file: url, problem: "is a FIFO (a named pipe), not a catalog file")
        case .device: throw CatalogError(file: url, problem: "is a device, not a catalog file")
        case .link, .socket, .other: throw CatalogError(file: url, problem: "is not a regular file")
        }
        guard info.bytes <= maxBytes else {
            throw CatalogError(
                file: url,
                problem: "is \(megabytes(info.bytes)); a catalog may be at most \(megabytes(maxBytes)) "
                    + "(a million rows take about 90 MB)")
        }
        if let error = HostFiles.whyUnreadable(url.path) {
            throw CatalogError(file: url, problem: "cannot be read (\(error))")
        }
        do {
            return try Data(contentsOf: url)
        } catch {
            throw CatalogError(file: url, problem: "cannot be read (\(error.localizedDescription))")
        }
    }

    /// The largest catalog file read: it is read whole, then decoded whole.
    public static let maxBytes = 256 << 20

    /// The deepest nesting of arrays and dictionaries accepted. A catalog
    /// needs 2 (an array of dictionaries); the property list parser recurses
    /// once a level, and 20,000 levels (300 KB) overflowed its stack.
    public static let maxDepth = 100

    /// The rows of a catalog plist read from `file`.
    public static func entries(in data: Data, file url: URL) throws -> [AppEntry] {
        guard !data.isEmpty else {
            throw CatalogError(file: url, problem: "is empty")
        }
        guard xmlDepth(of: data, over: maxDepth) <= maxDepth else {
            throw CatalogError(
                file: url,
                problem: "nests arrays or dictionaries more than \(maxDepth) deep; a catalog is an array of "
                    + "{name, icon, download} dictionaries")
        }
        let entries: [AppEntry]
        do {
            entries = try PropertyListDecoder().decode([AppEntry].self, from: data)
        } catch DecodingError.keyNotFound(let key, let context) {
            throw CatalogError(
                file: url, problem: "row \(rowNumber(context.codingPath)) has no '\(key.stringValue)' field")
        } catch DecodingError.typeMismatch(_, let context) {
            throw CatalogError(
                file: url, problem: "is not an array of {name, icon, download} dictionaries (\(describe(context)))")
        } catch {
            throw CatalogError(file: url, problem: "is not a valid property list (\(error.localizedDescription))")
        }
        guard !entries.isEmpty else {
            throw CatalogError(file: url, problem: "has no rows")
        }
        return entries
    }

    public init(source: URL, entries: [AppEntry]) {
        self.source = source
        self.entries = entries
    }

    /// How deep `<array>` and `<dict>` elements nest in an XML property list,
    /// counted on the bytes before any parsing (stopping once past `limit`).
    /// Comments are counted as elements: a catalog has no reason to hold
    /// hundreds of tags in them. A binary property list has no tags: 0.
    static func xmlDepth(of data: Data, over limit: Int) -> Int {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            func starts(with tag: [UInt8], at position: Int) -> Bool {
                guard position + tag.count <= bytes.count else { return false }
                for offset in tag.indices where bytes[position + offset] != tag[offset] { return false }
                return true
            }
            func opens(_ tag: [UInt8], at position: Int) -> Bool {
                let end = position + tag.count
                // `<array>` or `<array attr…>`, not `<array/>` or `<arrayish>`.
                guard starts(with: tag, at: position), end < bytes.count else { return false }
                return bytes[end] == UInt8(ascii: ">") || bytes[end] == UInt8(ascii: " ")
            }
            var depth = 0
            var deepest = 0
            var index = 0
            while index < bytes.count, deepest <= limit {
                if bytes[index] == UInt8(ascii: "<") {
                    if opens(Tag.array, at: index) || opens(Tag.dictionary, at: index) {
                        depth += 1
                        deepest = max(deepest, depth)
                    } else if starts(with: Tag.arrayEnd, at: index) || starts(with: Tag.dictionaryEnd, at: index) {
                        depth = max(depth - 1, 0)
                    }
                }
                index += 1
            }
            return deepest
        }
    }

    /// The tags `xmlDepth` counts, as bytes once (made from text at each `<`, they were most of a run's reading).
    private enum Tag {
        static let array = Array("<array".utf8)
        static let dictionary = Array("<dict".utf8)
        static let arrayEnd = Array("</array>".utf8)
        static let dictionaryEnd = Array("</dict>".utf8)
    }

    private static func megabytes(_ bytes: Int) -> String {
        String(format: "%.0f MB", Double(bytes) / Double(1 << 20))
    }

    private static func rowNumber(_ path: [any CodingKey]) -> String {
        path.first?.intValue.map(String.init) ?? "?"
    }

    private static func describe(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map { $0.intValue.map { "row \($0)" } ?? $0.stringValue }
        return path.isEmpty ? context.debugDescription : path.joined(separator: ", ")
    }
}

/// A catalog that could not be used, with the file and the reason.
public struct CatalogError: Error, CustomStringConvertible, Sendable {
    public let file: URL
    public let problem: String

    public var description: String { "catalog \(file.path) \(problem)" }
}
