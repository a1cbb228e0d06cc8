import Foundation
import LessonSupport
import SlowNetwork

// A controller in the shape of a learner's (see CauseTests): this file and
// PortedWarningCancels.swift and PortedPoolKept.swift are, to the checks, the
// learner's files.

/// An image loader in the shape of the published libraries': memory, then
/// disk, then the network, each download checked for cancellation before and
/// after its fetch, the pool emptied at a memory warning, the queue held while
/// the finger is down. Its one slip is theirs: a file on disk is named by the
/// URL's last path component, so rows whose URLs end alike (`…/qq/icon.png`,
/// `…/wechat/icon.png`) share one file, and read each other's icon from it.
final class LastComponentLoaderController: WarningCancelsController, @unchecked Sendable {
    override func diskFile(_ url: URL) -> URL {
        folder.appendingPathComponent(url.lastPathComponent)
    }

    override func makeOperation(_ url: URL) -> IconFetchOperation {
        RecheckingFetchOperation(url: url, network: network)
    }
}
