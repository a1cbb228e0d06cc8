import Foundation

// A controller in the shape of a learner's (see PortedTutorialTests): this
// file is, to the checks, the learner's only one.

/// Exercise 7 with the stale deliveries fixed the other way round: the
/// operation looks at `isCancelled` after its fetch too, but the memory
/// warning only cancels the queue: the pool keeps the cancelled operations,
/// which never hand anything over, so a row shown again finds its icon
/// "under way" for good. (The rest is PortedWarningCancels.swift's.)
final class RecheckingFetchOperation: IconFetchOperation, @unchecked Sendable {
    override func main() {
        guard !isCancelled else { return }
        let data = try? network.data(contentsOf: url)
        guard !isCancelled else { return }
        let onFinish = self.onFinish
        OperationQueue.main.addOperation { onFinish?(data) }
    }
}

final class PoolKeptController: WarningCancelsController, @unchecked Sendable {
    override func makeOperation(_ url: URL) -> IconFetchOperation {
        RecheckingFetchOperation(url: url, network: network)
    }

    override func didReceiveMemoryWarning() {
        downloads.cancelAllOperations()
        icons.removeAll()
    }
}
