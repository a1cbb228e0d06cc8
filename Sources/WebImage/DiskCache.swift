import Foundation
import SlowNetwork

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files in a folder of their own, one per key: step 6's sandbox cache, with
/// what a cache that lives for months needs besides.
///
/// - Names are step 6's: a 64-bit FNV-1a hash of the whole key, in hex (two
///   URLs ending in `icon.png` do not collide, and no name can contain `/` or
///   `..`), plus the extension the cache is given.
/// - Writes are atomic (a file is whole or absent), and make the folder again
///   if it has gone.
/// - **A maximum age**: a file not read or written for `maxAge` is removed
///   when it is next asked for, and by `removeExpired()`. Default 7 days, as
///   SDWebImage's `maxDiskAge`.
/// - **A maximum size**: after each write the least recently used files go
///   until the folder is within `maxSize` bytes. SDWebImage trims when the
///   app goes to the background, down to half its limit; there is no
///   background here, so the limit holds at every moment instead.
///
/// Time is `now()`: the wall clock by default, the story clock in the
/// lessons, any clock a test likes. It decides a file's age, and the time of
/// each file's last use (every read and write) is kept with the file, in an
/// extended attribute, so the order survives a relaunch. The file's own dates
/// stay the wall clock's (a read sets its modification date to now), as every
/// other program that looks at the folder expects.
///
/// Thread-safe (an `NSLock`); each call does its file work while it holds the
/// lock, so call it off the main queue (`ImageCache` does, on its own queue).
public final class DiskCache: @unchecked Sendable {
    /// A week, SDWebImage's default for `maxCacheAge`.
    public static let defaultMaxAge: TimeInterval = 7 * 24 * 60 * 60

    /// The folder the files live in, made when the first file is written.
    public let directory: URL
    /// Seconds since a file's last use after which it is dropped.
    public var maxAge: TimeInterval {
        get { lock.withLock { ageLimit } }
        set { lock.withLock { ageLimit = newValue } }
    }
    /// Bytes the files may take together; nil: no limit (SDWebImage's default).
    public var maxSize: Int? {
        get { lock.withLock { sizeLimit } }
        set {
            lock.withLock {
                sizeLimit = newValue
                trimToSize()
            }
        }
    }

    private let fileExtension: String
    private let now: @Sendable () -> Date
    private let lock = NSLock()
    private var ageLimit: TimeInterval
    private var sizeLimit: Int?
    /// What is on disk, by file name: size and last use. Read from the folder
    /// the first time it is needed, then kept up to date.
    private var index: [String: (size: Int, used: Date)]?

    /// A cache of files in `directory`, each named from its key and ending in `fileExtension`, dropped `maxAge`
    /// seconds after their last use or, past `maxSize` bytes together, oldest use first. `now` tells the time the
    /// ages are measured on (the story clock in the lessons).
    public init(
        directory: URL, fileExtension: String = "", maxAge: TimeInterval = DiskCache.defaultMaxAge, maxSize: Int? = nil,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.directory = directory
        self.fileExtension = fileExtension
        self.ageLimit = maxAge
        self.sizeLimit = maxSize
        self.now = now
    }

    /// The file name for a key: FNV-1a of the key's UTF-8 bytes, 16 hex digits.
    public func fileName(forKey key: String) -> String {
        let hex = String(StableHash.fnv1a(key), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + (fileExtension.isEmpty ? "" : "." + fileExtension)
    }

    /// The bytes stored for `key`, unless they are missing or expired (an
    /// expired file is removed). A hit counts as a use.
    public func data(forKey key: String) -> Data? {
        lock.withLock {
            let name = fileName(forKey: key)
            let time = now()
            guard let entry = loadedIndex()[name] else { return nil }
            if isExpired(entry.used, at: time) {
                remove(name)
                return nil
            }
            guard let data = try? Data(contentsOf: url(of: name)) else {
                index?[name] = nil
                return nil
            }
            touch(name, at: time, size: data.count)
            return data
        }
    }

    /// Writes `data` for `key`, atomically, then trims the folder to its size.
    /// Throws what the file system said when the file cannot be written (a
    /// folder it may not write, a full disk).
    public func store(_ data: Data, forKey key: String) throws {
        try lock.withLock {
            let name = fileName(forKey: key)
            _ = loadedIndex()
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            if index?[name] == nil { removeWhatIsNotAFile(at: name) }
            try data.write(to: url(of: name), options: .atomic)
            touch(name, at: now(), size: data.count)
            trimToSize()
        }
    }

    /// Whether a file for `key` is on disk (expired or not: `data(forKey:)` decides that).
    public func contains(key: String) -> Bool {
        lock.withLock { loadedIndex()[fileName(forKey: key)] != nil }
    }

    /// Removes the file for `key`, if there is one.
    public func removeData(forKey key: String) {
        lock.withLock {
            _ = loadedIndex()
            remove(fileName(forKey: key))
        }
    }

    /// Removes every file this cache wrote (and anything else in its folder).
    public func removeAll() {
        lock.withLock {
            try? FileManager.default.removeItem(at: directory)
            index = [:]
        }
    }

    /// Removes the files past their age, then the least recently used until
    /// the folder is within its size. Returns how many files went.
    @discardableResult
    public func removeExpired() -> Int {
        lock.withLock {
            let time = now()
            let before = loadedIndex().count
            for (name, entry) in loadedIndex() where isExpired(entry.used, at: time) { remove(name) }
            trimToSize()
            return before - (index?.count ?? 0)
        }
    }

    /// The bytes of every file, together.
    public var totalSize: Int { lock.withLock { loadedIndex().values.reduce(0) { $0 + $1.size } } }
    /// How many files there are.
    public var fileCount: Int { lock.withLock { loadedIndex().count } }

    // MARK: under the lock

    private func url(of name: String) -> URL { directory.appendingPathComponent(name) }

    private func isExpired(_ used: Date, at time: Date) -> Bool {
        time.timeIntervalSince(used) > ageLimit
    }

    /// The index, read from the folder the first time.
    private func loadedIndex() -> [String: (size: Int, used: Date)] {
        if let index { return index }
        var loaded: [String: (size: Int, used: Date)] = [:]
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]
        let files =
            (try? FileManager.default.contentsOfDirectory(
                at: directory, includingPropertiesForKeys: keys, options: [.skipsHiddenFiles])) ?? []
        for file in files {
            guard let values = try? file.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else {
                continue
            }
            let used = LastUse.read(at: file.path) ?? values.contentModificationDate ?? .distantPast
            loaded[file.lastPathComponent] = (values.fileSize ?? 0, used)
        }
        index = loaded
        return loaded
    }

    /// Records a use at `time`: in the index and with the file; the file's
    /// modification date becomes the wall clock's now.
    private func touch(_ name: String, at time: Date, size: Int) {
        let path = url(of: name).path
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: path)
        LastUse.write(time, at: path)
        index?[name] = (size, time)
    }

    /// A folder (or anything but a file) where a file is to go: the atomic
    /// write's rename cannot replace it, and the key would miss for good.
    private func removeWhatIsNotAFile(at name: String) {
        let path = url(of: name).path
        guard let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType,
            type != .typeRegular
        else { return }
        try? FileManager.default.removeItem(atPath: path)
    }

    private func remove(_ name: String) {
        try? FileManager.default.removeItem(at: url(of: name))
        index?[name] = nil
    }

    /// Least recently used first; equal dates by name, so the order is the
    /// same in every run.
    private func trimToSize() {
        guard let limit = sizeLimit, var entries = index else { return }
        var total = entries.values.reduce(0) { $0 + $1.size }
        guard total > limit else { return }
        let order = entries.sorted { ($0.value.used, $0.key) < ($1.value.used, $1.key) }
        for (name, entry) in order where total > limit {
            remove(name)
            entries[name] = nil
            total -= entry.size
        }
    }
}

/// A file's last use by the cache's clock, kept in an extended attribute of
/// the file (as SDWebImage's `SDDiskCache` keeps its own on Darwin). A file
/// system without them (or a file written by someone else) has none: its
/// modification date stands in.
private enum LastUse {
    static let attribute = "user.webimage.last-use"

    static func read(at path: String) -> Date? {
        var bits: UInt64 = 0
        let size = withUnsafeMutableBytes(of: &bits) { get(path, $0.baseAddress, $0.count) }
        guard size == MemoryLayout<UInt64>.size else { return nil }
        return Date(timeIntervalSince1970: Double(bitPattern: UInt64(littleEndian: bits)))
    }

    static func write(_ date: Date, at path: String) {
        var bits = date.timeIntervalSince1970.bitPattern.littleEndian
        _ = withUnsafeBytes(of: &bits) { set(path, $0.baseAddress, $0.count) }
    }

    #if canImport(Glibc)
        // Glibc's Swift module leaves out <sys/xattr.h>: its two calls are looked up by name (a null handle is
        // glibc's RTLD_DEFAULT: the process's own symbols).
        private typealias GetAttribute =
            @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?, Int) -> Int
        private typealias SetAttribute =
            @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeRawPointer?, Int, Int32) -> Int32
        private static let getAttribute = dlsym(nil, "getxattr").map { unsafeBitCast($0, to: GetAttribute.self) }
        private static let setAttribute = dlsym(nil, "setxattr").map { unsafeBitCast($0, to: SetAttribute.self) }

        /// The attribute's bytes into `buffer`: their count, or -1.
        private static func get(_ path: String, _ buffer: UnsafeMutableRawPointer?, _ size: Int) -> Int {
            getAttribute?(path, attribute, buffer, size) ?? -1
        }

        private static func set(_ path: String, _ value: UnsafeRawPointer?, _ size: Int) -> Int32 {
            setAttribute?(path, attribute, value, size, 0) ?? -1
        }
    #elseif canImport(Darwin)
        // Darwin's calls take a position (resource forks only) and options besides: 0 for both, a plain attribute
        // that follows symbolic links, as Linux's.
        private static func get(_ path: String, _ buffer: UnsafeMutableRawPointer?, _ size: Int) -> Int {
            getxattr(path, attribute, buffer, size, 0, 0)
        }

        private static func set(_ path: String, _ value: UnsafeRawPointer?, _ size: Int) -> Int32 {
            setxattr(path, attribute, value, size, 0, 0)
        }
    #else
        private static func get(_ path: String, _ buffer: UnsafeMutableRawPointer?, _ size: Int) -> Int { -1 }
        private static func set(_ path: String, _ value: UnsafeRawPointer?, _ size: Int) -> Int32 { -1 }
    #endif
}
