import Foundation
import LessonSupport
import TableKit

/// Tutorial 002's look-up (`--disk-hit-downloads`): 003's, but the call that
/// starts the download comes after the `if`/`else` that read the file, so an
/// icon found on disk is shown and downloaded all the same. The disk saves no
/// traffic; it only fills the screen a little sooner.
final class DiskHitDownloadsViewController: DiskHitNotKeptViewController {
    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = super.tableView(tableView, cellForRowAt: indexPath)
        let icon = apps[indexPath.row].icon
        // Not in memory: a disk hit, or a miss whose download the pool already holds.
        if imageCache[icon] == nil {
            download(icon, at: indexPath, to: cacheFile(for: icon))
        }
        return cell
    }
}
