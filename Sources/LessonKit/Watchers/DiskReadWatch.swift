import Foundation
import HostOS

/// The files an app reads from its caches folder, seen from outside the way a
/// file-system monitor sees them (Linux's inotify): every file opened and
/// closed again without a write is one read. The harness chooses the folder,
/// so it can watch it without the app's help.
///
/// `reads` is nil when the watch could not follow the folder for the whole
/// run: there was no folder when the app launched, it was deleted or moved, or
/// the kernel's event queue overflowed. Two threads reading one file at the
/// same instant count once (the kernel merges identical events in a row).
final class DiskReadWatch {
    private let events: FolderEvents
    private let folder: URL
    /// The folder's device and inode when the watch began.
    private let identity: (device: UInt64, inode: UInt64)?
    private var lost = false
    private var count = 0

    /// Starts watching `folder` if it exists now.
    init(folder: URL) {
        self.folder = folder
        identity = HostFiles.identity(of: folder.path)
        // Opens as well as closes: the kernel merges an event identical to the
        // one before it, and two reads of one file alternate open and close.
        events = FolderEvents(folder: folder.path, for: [.opened, .closedUnwritten, .folderDeleted, .folderMoved])
    }

    /// The reads so far, or nil if some may have been missed.
    var reads: Int? {
        drain()
        // The kernel says a folder went only once nothing holds it any more: ask the path too.
        if let identity, HostFiles.identity(of: folder.path).map({ $0 != identity }) ?? true { lost = true }
        return events.isWatching && !lost ? count : nil
    }

    /// Takes what the kernel has queued; called often enough that its queue
    /// (16,384 events by default) does not overflow.
    func drain() {
        for event in events.take() {
            if !event.kind.isDisjoint(with: [.overflowed, .folderDeleted, .folderMoved, .watchEnded]) { lost = true }
            // A file in the folder (it has a name; the folder itself has none), closed unwritten.
            if event.kind.contains(.closedUnwritten) && !event.kind.contains(.isFolder) && event.namesAFile { count += 1 }
        }
    }
}
