import Foundation
import SlowNetwork
import TableKit

/// Who hears about a finished download. `AnyObject`, so it can be held weakly.
protocol DownloadOperationDelegate: AnyObject {
    /// Called on the main queue, unless the operation was cancelled before
    /// its download ended.
    func downloadOperation(_ operation: DownloadOperation, didFinishWith image: Image?)
}

/// The tutorials' custom operation: one icon's download as a class of its own.
///
/// Its `main()` asks `isCancelled`, which the tutorials' blocks never do
/// (a block could, through a weak reference to its operation): `cancel()` only
/// sets a flag, and work that never looks at it runs to the end and delivers anyway.
///
/// `@unchecked Sendable` restates what `Operation` already says: its state is
/// set before the queue sees it, and `delegate` is read on the main queue only.
class DownloadOperation: Operation, @unchecked Sendable {
    let icon: String
    let indexPath: IndexPath
    /// Where the downloaded bytes go on disk.
    let file: URL
    let network: SlowNetwork
    /// Weak: the controller owns the queue that owns this operation; a strong
    /// reference back would be step 4's retain cycle again.
    weak var delegate: DownloadOperationDelegate?

    init(icon: String, indexPath: IndexPath, file: URL, network: SlowNetwork) {
        self.icon = icon
        self.indexPath = indexPath
        self.file = file
        self.network = network
    }

    override func main() {
        // Cancelled while it waited in the queue: do not even start.
        if isCancelled { return }
        let data = URL(string: icon).flatMap { try? network.data(contentsOf: $0) }
        // Cancelled while it downloaded: `Data(contentsOf:)` cannot be
        // interrupted, so the bytes came anyway; but nobody gets them.
        if isCancelled { return }
        let image = data.flatMap { Image(data: $0) }
        // Kept on disk, atomically, only if the bytes decoded, in a folder
        // made again if it has gone since launch (step 6).
        if let data, image != nil {
            try? FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? data.write(to: file, options: .atomic)
        }
        // No third `isCancelled` check in this block: it is queued from inside
        // `main()` and may run before or after the operation has finished, and
        // `cancel()` does nothing to a finished operation (`isCancelled` stays
        // false; Lesson07Tests shows it), so a check here would miss a warning
        // that came after `main()` returned. Whether a late result is still
        // wanted is the delegate's call.
        OperationQueue.main.addOperation {
            self.delegate?.downloadOperation(self, didFinishWith: image)
        }
    }
}
