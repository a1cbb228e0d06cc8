import Foundation
import SlowNetwork
import TableKit

/// The step's caches folder as a run sees it: what an earlier run left there,
/// the app's reads from it (from the launch on), and what it holds at the end.
final class CachesFolderWatch {
    let folder: URL
    /// What an earlier run left in the caches folder: a warm start.
    private let filesAtStart: Int
    private var reads: DiskReadWatch?
    /// The rows whose icon a file's bytes are, by the fingerprint of their art.
    private let rowsOfFingerprint: [Int: [Int]]

    /// `icons`: each row's icon URL, to tell whose icon a file read holds.
    init(_ folder: URL, icons: [String]) {
        self.folder = folder
        filesAtStart = CacheFolder.files(in: folder).count
        var rows: [Int: [Int]] = [:]
        for (row, icon) in icons.enumerated() {
            guard let fingerprint = IconFingerprint.of(icon) else { continue }
            rows[fingerprint, default: []].append(row)
        }
        rowsOfFingerprint = rows
    }

    /// Starts watching the app's reads; after the launch, since an app may
    /// make its caches folder as it starts.
    func watchReads() {
        reads = DiskReadWatch(folder: folder) { [rowsOfFingerprint] bytes in
            Image.fingerprint(of: bytes).flatMap { rowsOfFingerprint[$0] }
        }
    }

    /// Takes in the reads seen so far.
    func drain() { reads?.drain() }

    func figures() -> DiskFigures {
        let files = CacheFolder.files(in: folder)
        var figures = DiskFigures()
        figures.diskCacheFilesAtStart = filesAtStart
        figures.diskReads = reads?.reads
        figures.diskReadFiles = reads?.readFiles
        figures.diskCacheFiles = files.count
        figures.diskCacheBytes = files.reduce(0) { total, name in
            let path = folder.appendingPathComponent(name).path
            return total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
        }
        return figures
    }
}
