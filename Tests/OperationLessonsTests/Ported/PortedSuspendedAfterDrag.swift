import Foundation
import LessonSupport
import TableKit

// A controller in the shape of a learner's (see CauseTests): this file and
// PortedWarningCancels.swift and PortedPoolKept.swift are, to the checks, the
// learner's files.

/// Exercise 7 with the queue let go only when a glide ends: a plain drag,
/// which lifts the finger on a table at rest, never glides, so
/// `scrollViewDidEndDecelerating` never comes and the queue stays suspended.
/// Every download asked for after that waits for good. The rest is right:
/// operations that look at `isCancelled` before and after the fetch, a pool
/// and a dictionary of icons, both emptied at a memory warning.
final class SuspendedAfterDragController: WarningCancelsController, @unchecked Sendable {
    override func makeOperation(_ url: URL) -> IconFetchOperation {
        RecheckingFetchOperation(url: url, network: network)
    }

    override func scrollViewDidEndDragging(_ tableView: TableView, willDecelerate decelerate: Bool) {}
}
