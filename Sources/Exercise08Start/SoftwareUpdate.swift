import Foundation
import LessonKit
import SlowNetwork
import TableKit

/// The tutorial's software update: download the package, unzip it (the slow
/// part), then tell the user "upgrade complete" — on the main queue, because
/// that is UI. Three operations on two queues.
final class SoftwareUpdate {
    static let packageURL = URL(string: "https://updates.example.com/app-2.0.zip")!

    /// What one finished step saw and did.
    struct Step: Equatable {
        let name: String
        let lane: String
        /// Whether the step before it had left its result when this one started.
        let hadInput: Bool
        let endMs: Double
    }

    let network: SlowNetwork
    let trace: OperationTrace
    /// Wall seconds the unzip takes: drawn from the seed, so a seed replays the same race.
    let unzipSeconds: Double
    let backgroundQueue = OperationQueue()
    /// The app's status line: UIKit, so the main queue only.
    let statusLabel = Label()

    private let lock = NSLock()
    private var downloadedPackage: Data?
    private var unzippedFiles: Int?
    private var steps: [Step] = []
    private var completionLanes: [String: String] = [:]
    /// Entered for each operation made, left by its completion block.
    private let completionBlocks = DispatchGroup()

    /// - Parameters:
    ///   - conditions: the network the package comes from (latency and jitter
    ///     drawn from its seed: the download time).
    init(conditions: NetworkConditions, trace: OperationTrace) {
        self.network = SlowNetwork(conditions: conditions, isMainQueue: { MainQueue.isCurrent })
        self.trace = trace
        var random = SeededGenerator(seed: conditions.seed ^ StableHash.fnv1a("unzip"))
        unzipSeconds = conditions.wallSeconds(0.5 + 2 * random.nextUnit())
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
            // Which thread runs a completion block? Write it down and see.
            completionBlocks.enter()
            operation.completionBlock = {
                self.completionRan(name)
                self.completionBlocks.leave()
            }
        }
        return (download, unzip, install)
    }

    /// The tutorial's chain: download and unzip on the background queue,
    /// install on the main queue.
    func start(withDependencies: Bool) -> [Operation] {
        let (download, unzip, install) = makeOperations()
        if withDependencies {
            // Exercise 8: make each step wait for the one before it.
        }
        // Enqueued last-first on purpose: the order you add them does not matter.
        OperationQueue.main.addOperation(install)
        backgroundQueue.addOperations([unzip, download], waitUntilFinished: false)
        return [download, unzip, install]
    }

    private func download() {
        trace.span("download") {
            let package = try? network.data(contentsOf: Self.packageURL)
            finish("download", hadInput: true) { self.downloadedPackage = package }
        }
    }

    private func unzip() {
        trace.span("unzip") {
            // Whatever the download has left by now is what there is to unzip.
            let package = lock.withLock { downloadedPackage }
            Thread.sleep(forTimeInterval: unzipSeconds)
            finish("unzip", hadInput: package != nil) { self.unzippedFiles = package.map { $0.count / 64 + 1 } }
        }
    }

    private func install() {
        trace.span("install") {
            let files = lock.withLock { unzippedFiles }
            statusLabel.text =
                files.map { "upgrade complete: \($0) files installed" } ?? "upgrade failed: nothing to install"
            finish("install", hadInput: files != nil) {}
        }
    }

    private func finish(_ name: String, hadInput: Bool, storing result: () -> Void) {
        let step = Step(name: name, lane: trace.currentLane(), hadInput: hadInput, endMs: trace.now())
        lock.withLock {
            result()
            steps.append(step)
        }
    }

    private func completionRan(_ name: String) {
        let lane = trace.currentLane()
        lock.withLock { completionLanes[name] = lane }
    }

    /// The steps in the order they finished.
    var finishedSteps: [Step] { lock.withLock { steps } }

    /// Returns once every completion block has run. They run *after* their
    /// operation is finished, on another thread, so "all finished" is not yet
    /// "all completion blocks done". Only for operations that were enqueued.
    func completionBlocksHaveRun() async {
        await withCheckedContinuation { done in completionBlocks.notify(queue: .global()) { done.resume() } }
    }

    /// The lane each operation's `completionBlock` ran on.
    var completionBlockLanes: [String: String] { lock.withLock { completionLanes } }
}

/// What exercise 8's checks look at (`swift run lessons check 8`).
extension SoftwareUpdate: SoftwareUpdateExercise {
    var finishedStepRecords: [(name: String, hadInput: Bool)] { finishedSteps.map { ($0.name, $0.hadInput) } }
}
