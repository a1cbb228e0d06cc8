import Foundation
import HostOS

/// The files an app reads from its caches folder, seen from outside the way a
/// file-system monitor sees them (Linux's inotify): every file opened and
/// closed again without a write is one read. The harness chooses the folder,
/// so it can watch it without the app's help.
///
/// inotify watches one folder, not what is under it: each subfolder gets a
/// watch of its own, those there at the start and each one made later as its
/// making is seen, so a library's `Caches/images/…` is watched too. Each read
/// is kept by file, with the icon the file held when the read was taken in
/// (`whose`), so a report can say which file a row's icon was read from.
///
/// `reads` is nil when the watch could not follow the folder for the whole
/// run: there was no folder when the app launched, it was deleted or moved, a
/// subfolder could not be watched, or the kernel's event queue overflowed. Two
/// threads reading one file at the same instant count once (the kernel merges
/// identical events in a row).
final class DiskReadWatch {
    private let events = FolderEvents()
    private let folder: URL
    /// What a file holds, by its bytes: the rows whose icon it is, or nil.
    private let whose: (Data) -> [Int]?
    /// The folder's device and inode when the watch began.
    private var identity: (device: UInt64, inode: UInt64)?
    /// Each watched folder's path under `folder` ("" for itself), by watch.
    private var subfolders: [Int32: String] = [:]
    private var watching = false
    private var lost = false
    private var files: [DiskReadFile.Key: Int] = [:]
    /// The watch's own reads of a file, to tell what a file holds: seen by
    /// the kernel like the app's, and not counted as the app's.
    private var ownReads: [String: Int] = [:]

    /// Opens as well as closes: the kernel merges an event identical to the
    /// one before it, and two reads of one file alternate open and close.
    /// A folder made or moved in is watched in turn.
    private static let kinds: FolderEvents.Kind = [
        .opened, .closedUnwritten, .folderDeleted, .folderMoved, .created, .movedIn,
    ]

    /// Starts watching `folder` and every folder under it, if it exists now.
    init(folder: URL, whose: @escaping (Data) -> [Int]? = { _ in nil }) {
        self.folder = folder
        self.whose = whose
        identity = HostFiles.identity(of: folder.path)
        watching = watch("")
    }

    /// The reads so far, or nil if some may have been missed.
    var reads: Int? {
        drain()
        // The kernel says a folder went only once nothing holds it any more: ask the path too.
        if let identity, HostFiles.identity(of: folder.path).map({ $0 != identity }) ?? true { lost = true }
        return watching && !lost ? files.values.reduce(0, +) : nil
    }

    /// The reads so far by file and by the icon it held, in path order; nil when `reads` is.
    var readFiles: [DiskReadFile]? {
        guard reads != nil else { return nil }
        let read = files.map { DiskReadFile(file: $0.key.file, rows: $0.key.rows, reads: $0.value) }
        return DiskReadFile.merged([], read)
    }

    /// Watches the folder at `path` under `folder`, and every folder under it.
    private func watch(_ path: String) -> Bool {
        let url = path.isEmpty ? folder : folder.appendingPathComponent(path)
        guard let added = events.watch(url.path, for: Self.kinds) else { return false }
        subfolders[added] = path
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        for name in names.sorted() {
            var isFolder: ObjCBool = false
            let inside = path.isEmpty ? name : path + "/" + name
            let found = FileManager.default.fileExists(
                atPath: folder.appendingPathComponent(inside).path, isDirectory: &isFolder)
            guard found, isFolder.boolValue
            else { continue }
            if !watch(inside) { return false }
        }
        return true
    }

    /// Takes what the kernel has queued; called often enough that its queue
    /// (16,384 events by default) does not overflow.
    func drain() {
        guard watching else { return }
        // Until nothing is left: the watch's own reads, made while it takes events in, queue events of their own.
        var taken = events.take()
        while !taken.isEmpty {
            taken.forEach(self.taken)
            taken = events.take()
        }
    }

    private func taken(_ event: FolderEvents.Event) {
        // The watched folder itself going: only the top one loses the run; a subfolder's watch simply ends.
        if event.kind.contains(.overflowed) { lost = true }
        if !event.kind.isDisjoint(with: [.folderDeleted, .folderMoved, .watchEnded]) {
            if subfolders[event.watch] == "" { lost = true }
            subfolders[event.watch] = nil
            return
        }
        guard let under = subfolders[event.watch], !event.name.isEmpty else { return }
        let path = under.isEmpty ? event.name : under + "/" + event.name
        if event.kind.contains(.isFolder) {
            if !event.kind.isDisjoint(with: [.created, .movedIn]), !watch(path) { lost = true }
            return
        }
        // A file in a watched folder, closed unwritten: a read, kept with the icon the file holds now.
        guard event.kind.contains(.closedUnwritten) else { return }
        if let own = ownReads[path], own > 0 {
            ownReads[path] = own - 1
            return
        }
        let bytes = try? Data(contentsOf: folder.appendingPathComponent(path))
        if bytes != nil { ownReads[path, default: 0] += 1 }
        files[DiskReadFile.Key(file: path, rows: bytes.flatMap(whose) ?? []), default: 0] += 1
    }
}
