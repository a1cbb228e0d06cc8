import Foundation
import LessonSupport
import SlowNetwork
import TableKit

/// The tutorial's software update: download the package, unzip it (the slow
/// part), then tell the user "upgrade complete" — on the main queue, because
/// that is UI. Three operations on two queues; each writes a line to the log
/// when its work is done, as the tutorial's `NSLog`s do.
final class SoftwareUpdate {
    static let packageURL = URL(string: "https://updates.example.com/app-2.0.zip")!

    let network: SlowNetwork
    let log: AppLog
    /// What the unzip sleeps on: the tutorial's `[NSThread sleepForTimeInterval:]`.
    let clock: AppClock
    /// How long unzipping takes (the tutorial sleeps 2 s).
    let unzipSeconds: TimeInterval
    let backgroundQueue = OperationQueue()
    /// The app's status line: UIKit, so the main queue only.
    let statusLabel = Label()

    private let lock = NSLock()
    private var downloadedPackage: Data?
    private var unzippedFiles: Int?

    init(network: SlowNetwork, log: AppLog, clock: AppClock, unzipSeconds: TimeInterval) {
        self.network = network
        self.log = log
        self.clock = clock
        self.unzipSeconds = unzipSeconds
        backgroundQueue.name = "update queue"
    }

    /// The three operations, not yet related and not yet enqueued.
    func makeOperations() -> (download: Operation, unzip: Operation, install: Operation) {
        let download = BlockOperation { self.download() }
        download.name = "download"
        let unzip = BlockOperation { self.unzip() }
        unzip.name = "unzip"
        let install = BlockOperation { self.install() }
        install.name = "install"
        for operation in [download, unzip, install] {
            let name = operation.name ?? ""
            // Which thread runs a completion block? Log it and see.
            operation.completionBlock = { self.log("\(name) finished") }
        }
        return (download, unzip, install)
    }

    /// The tutorial's chain. Without dependencies the three start together
    /// and finish in whatever order their durations say; with them, each
    /// waits for the one before — even across queues: `install` sits on the
    /// main queue and waits for `unzip` on the background queue.
    func start(withDependencies: Bool) -> [Operation] {
        let (download, unzip, install) = makeOperations()
        if withDependencies {
            unzip.addDependency(download)
            install.addDependency(unzip)
        }
        // Enqueued last-first on purpose: the order you add them does not matter.
        OperationQueue.main.addOperation(install)
        backgroundQueue.addOperations([unzip, download], waitUntilFinished: false)
        return [download, unzip, install]
    }

    /// The chain with the download cancelled before it starts. `unzip` still
    /// runs: the queue starts the cancelled download, which finishes at once,
    /// and that finish is what `unzip` waits for.
    func startWithCancelledDownload() -> [Operation] {
        let (download, unzip, install) = makeOperations()
        unzip.addDependency(download)
        install.addDependency(unzip)
        download.cancel()
        OperationQueue.main.addOperation(install)
        backgroundQueue.addOperations([download, unzip], waitUntilFinished: false)
        return [download, unzip, install]
    }

    private func download() {
        let package = try? network.data(contentsOf: Self.packageURL)
        lock.withLock { downloadedPackage = package }
        log(package.map { "download: \($0.count) bytes" } ?? "download: failed")
    }

    private func unzip() {
        // Whatever the download has left by now is what there is to unzip.
        let package = lock.withLock { downloadedPackage }
        clock.sleep(forTimeInterval: unzipSeconds)
        let files = package.map { $0.count / 64 + 1 }
        lock.withLock { unzippedFiles = files }
        log(files.map { "unzip: \($0) files" } ?? "unzip: nothing to unzip")
    }

    private func install() {
        let files = lock.withLock { unzippedFiles }
        let status = files.map { "upgrade complete: \($0) files installed" } ?? "upgrade failed: nothing to install"
        statusLabel.text = status
        log("install: \(status)")
    }
}
