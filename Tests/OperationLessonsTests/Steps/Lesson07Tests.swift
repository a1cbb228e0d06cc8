import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit
import Testing

@testable import Lesson06SandboxCache
@testable import Lesson07CustomOperation

/// Step 6 → 7: cancelled downloads no longer deliver, no download starts while
/// the user scrolls, and what suspending a queue does not stop.
@Suite struct Lesson07Tests {
    static func run(_ controller: any LessonController.Type, _ scenario: Scenario) async -> ScenarioResult {
        await SharedRuns.shared.result(controller, scenario)
    }

    @Test func downloadsUnderWayAtAMemoryWarningDeliverNothingAfterIt() async throws {
        let step6 = await Self.run(Lesson06SandboxCache.AppsViewController.self, .memoryWarningMidDownload)
        let step7 = await Self.run(Lesson07CustomOperation.AppsViewController.self, .memoryWarningMidDownload)
        // Step 6's block operations run to the end and deliver after the warning:
        // three were under way at it (a fourth was only waiting; it starts after).
        #expect(step6.report.staleDeliveries == 3)
        #expect(step7.report.staleDeliveries == 0)
        // The rows on screen lost their downloads too (the price of cancelling
        // everything): placeholders until they are shown again.
        #expect(step7.report.ownIconsAtEnd == 0)
    }

    /// Step 7's own story goes on after the warning: the user scrolls the
    /// rows away and back, they are asked for again, and it ends with each
    /// on its own icon, nothing stale delivered, no download started mid-drag.
    @Test func stepSevensOwnStoryEndsWithTheCancelledRowsLoaded() async throws {
        let own = try #require(LessonCatalog.entry(7).flatMap { Scenario.named($0.defaultScenario) })
        let step6 = await Self.run(Lesson06SandboxCache.AppsViewController.self, own).report
        let step7 = await Self.run(Lesson07CustomOperation.AppsViewController.self, own).report
        #expect(step7.visibleRowsAtEnd == 8 && step7.ownIconsAtEnd == 8)
        #expect(step7.staleDeliveries == 0 && step7.requestsStartedWhileScrolling == 0)
        #expect(step6.staleDeliveries == 3 && step6.requestsStartedWhileScrolling == 4)
    }

    /// Wasted work: downloads that were only waiting when the warning came.
    @Test func waitingDownloadsNeverStartAfterAMemoryWarning() async throws {
        func startedAfterWarning(_ result: ScenarioResult) throws -> Int {
            let warning = try #require(result.timeline.events.first { $0.label == "memory warning" })
            return result.timeline.requests.filter { $0.startMs > warning.ms }.count
        }
        let step6 = await Self.run(Lesson06SandboxCache.AppsViewController.self, .memoryWarningMidDownload)
        let step7 = await Self.run(Lesson07CustomOperation.AppsViewController.self, .memoryWarningMidDownload)
        let started6 = try startedAfterWarning(step6)
        let started7 = try startedAfterWarning(step7)
        // Step 6 keeps downloading rows the user has scrolled past, after the warning.
        #expect(started6 == 4)
        #expect(started7 == 0)
    }

    @Test(arguments: [Scenario.standard, .memoryWarningMidDownload])
    func noDownloadStartsWhileTheUserScrolls(scenario: Scenario) async {
        let step6 = await Self.run(Lesson06SandboxCache.AppsViewController.self, scenario).report
        let step7 = await Self.run(Lesson07CustomOperation.AppsViewController.self, scenario).report
        // Step 6 starts downloads for rows passing by during the drag.
        #expect(step6.requestsStartedWhileScrolling == (scenario.name == "standard" ? 9 : 3))
        #expect(step7.requestsStartedWhileScrolling == 0)
        if scenario.name == "standard" {
            // Suspended, not dropped: the rows scrolled past still download, after the drag.
            #expect(step7.requests == 28 && step6.requests == 28)
        }
    }

    /// The same scenario, then the user scrolls away and back: the rows whose
    /// downloads the warning cancelled load when shown again (the pool was
    /// emptied with the cancel; a cancelled entry left in it would block them).
    @Test func rowsCancelledByAMemoryWarningLoadWhenShownAgain() async {
        var scenario = Scenario.memoryWarningMidDownload
        scenario.slowSeconds = 2...3
        scenario.steps += [
            .drag(toRow: 0, seconds: 0.5), .settle(timeout: 5), .drag(toRow: 14, seconds: 0.5), .settle(timeout: 20),
        ]
        let result = await ScenarioRunner.run(
            ScenarioSetup(
                lesson: "07", title: "custom Operation", controller: Lesson07CustomOperation.AppsViewController.self,
                scenario: scenario))
        #expect(result.report.ownIconsAtEnd == result.report.visibleRowsAtEnd)
        #expect(result.report.staleDeliveries == 0)
    }

    /// The harness judges a stale delivery from outside (a reload or an image
    /// set after the warning, for an icon last asked for before it), so it can
    /// fail on step 7's own code: without its cancel and its pool guard it
    /// delivers as step 6 does.
    @Test func theStaleDeliveryMeasureCatchesAStep7WithoutItsFix() async {
        let broken = await ScenarioRunner.run(
            ScenarioSetup(
                lesson: "07", title: "custom Operation, no cancel", controller: Step7WithoutItsFix.self,
                scenario: .memoryWarningMidDownload))
        #expect(broken.report.staleDeliveries == 3)
        #expect(broken.report.requestsAfterMemoryWarning == 3)
    }

    /// Records what a delegate hears, and lets a test wait for it.
    final class Deliveries: DownloadOperationDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var icons: [String] = []
        private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

        var delivered: [String] { lock.withLock { icons } }

        func downloadOperation(_ operation: DownloadOperation, didFinishWith image: Image?) {
            let ready = lock.withLock {
                icons.append(operation.icon)
                let ready = waiters.filter { $0.count <= icons.count }
                waiters.removeAll { $0.count <= icons.count }
                return ready
            }
            for waiter in ready { waiter.continuation.resume() }
        }

        func wait(forCount count: Int) async {
            await withCheckedContinuation { continuation in
                let already = lock.withLock {
                    if icons.count >= count { return true }
                    waiters.append((count, continuation))
                    return false
                }
                if already { continuation.resume() }
            }
        }
    }

    @Test func suspendingTheQueueLetsTheRunningOperationFinishAndHoldsTheRest() async throws {
        // Alone: see `ExclusiveRun`.
        try await ExclusiveRun.run { _ in
            // Held: a download stays in flight until the test moves the clock.
            let clock = ManualClock()
            let network = SlowNetwork(clock: clock)
            defer { network.shutdown() }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lesson07-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let icons = AppCatalog.bundled().entries.prefix(2).map(\.icon)
            let deliveries = Deliveries()
            let operations = icons.enumerated().map { row, icon in
                let operation = DownloadOperation(
                    icon: icon, indexPath: IndexPath(row: row), file: folder.appendingPathComponent("\(row).ppm"),
                    network: network)
                operation.delegate = deliveries
                return operation
            }
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            for operation in operations { queue.addOperation(operation) }

            // The first is downloading, the second waits for its turn. Suspend now.
            // The first stays in flight until the clock moves: suspending after the wait is in time.
            try await network.wait("the first download is under way") { network.counts.inFlight == 1 }
            queue.isSuspended = true
            #expect(operations[0].isExecuting && !operations[1].isExecuting)

            // isSuspended does not stop the running operation: it finishes and delivers.
            clock.advance(by: 10)
            await deliveries.wait(forCount: 1)
            #expect(deliveries.delivered == [icons[0]])
            // …but the waiting one does not start while the queue is suspended.
            #expect(!operations[1].isExecuting && !operations[1].isFinished)
            // Not synchronisation: a window in which a queue that was not
            // suspended would have started the second download.
            try await Task.sleep(for: .milliseconds(200))
            #expect(!operations[1].isExecuting && !operations[1].isFinished)
            #expect(network.log.count == 1)

            queue.isSuspended = false
            try await network.wait("the second download is under way") { network.counts.inFlight == 1 }
            clock.advance(by: 10)
            await deliveries.wait(forCount: 2)
            #expect(deliveries.delivered == icons)
            #expect(network.log.count == 2)
        }
    }

    @Test func aCancelledOperationNeverCallsItsDelegate() async throws {
        // Alone: see `ExclusiveRun`.
        try await ExclusiveRun.run { _ in
            // Held: a download stays in flight until the test moves the clock.
            let clock = ManualClock()
            let network = SlowNetwork(clock: clock)
            defer { network.shutdown() }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lesson07-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let icons = AppCatalog.bundled().entries.prefix(3).map(\.icon)
            let deliveries = Deliveries()
            let operations = icons.enumerated().map { row, icon in
                let operation = DownloadOperation(
                    icon: icon, indexPath: IndexPath(row: row), file: folder.appendingPathComponent("\(row).ppm"),
                    network: network)
                operation.delegate = deliveries
                return operation
            }
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            // The third is the control: never cancelled, it delivers, and it runs
            // after the other two, so when it has delivered they had their chance.
            operations[2].addDependency(operations[1])
            for operation in operations { queue.addOperation(operation) }
            try await network.wait("the first download is under way") { network.counts.inFlight == 1 }
            operations[0].cancel()  // while downloading
            operations[1].cancel()  // while waiting
            #expect(operations[0].isExecuting)
            clock.advance(by: 10)
            try await network.wait("the control is under way") { network.log.count == 2 && network.counts.inFlight == 1 }
            clock.advance(by: 10)
            await deliveries.wait(forCount: 1)
            #expect(deliveries.delivered == [icons[2]])
            // The running one fetched to the end (a blocking fetch cannot be stopped);
            // the waiting one never fetched.
            #expect(Set(network.log.requests.map(\.url)) == [icons[0], icons[2]])
            // Nor did it write its bytes to disk; the control did.
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("0.ppm").path))
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("2.ppm").path))
        }
    }

    /// Downloads that finished just before a memory warning, whose hand-over
    /// was still waiting on the main queue behind it: nothing may reach the
    /// cache after the warning. Played by hand, on the main queue, so the
    /// order is certain: show the first screen, hold the main queue until
    /// every download has finished, get the warning, let the hand-overs run.
    static func handOversQueuedBehindAWarning(_ controllerType: any LessonController.Type) async throws -> (
        cachedAfterWarning: Int, shownAfterWarning: Int, requests: Int
    ) {
        try await ExclusiveRun.run { _ in
            var conditions = NetworkConditions()
            conditions.latency = 0.05
            let network = SlowNetwork(conditions: conditions)
            defer { network.shutdown() }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lesson07-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let environment = LessonEnvironment(
                network: network, catalogURL: AppCatalog.bundledURL, cachesDirectory: folder)
            let box = ControllerBox()
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                OperationQueue.main.addOperation {
                    let controller = controllerType.init(environment: environment)
                    box.controller = controller
                    controller.viewDidLoad()
                    controller.tableView.reloadData()
                    // A queue drops an operation once its `main()` has returned,
                    // that is, once its hand-over is queued here.
                    Self.queue(of: controller)?.waitUntilAllOperationsAreFinished()
                    controller.didReceiveMemoryWarning()
                    // Queued behind the hand-overs: runs once they all have.
                    OperationQueue.main.addOperation { done.resume() }
                }
            }
            let controller = try #require(box.controller)
            let cached: Int
            if let step6 = controller as? Lesson06SandboxCache.AppsViewController {
                cached = step6.imageCache.count
            } else {
                cached = try #require(controller as? Lesson07CustomOperation.AppsViewController).imageCache.count
            }
            let shown = controller.tableView.snapshot().rows.filter { $0.image.map { !$0.isPlaceholder } ?? false }
            return (cached, shown.count, network.log.count)
        }
    }

    static func queue(of controller: any LessonController) -> OperationQueue? {
        (controller as? Lesson06SandboxCache.AppsViewController)?.queue
            ?? (controller as? Lesson07CustomOperation.AppsViewController)?.queue
    }

    final class ControllerBox: @unchecked Sendable {
        var controller: (any LessonController)?
    }

    @Test func handOversQueuedBehindAMemoryWarningAreDropped() async throws {
        let step6 = try await Self.handOversQueuedBehindAWarning(Lesson06SandboxCache.AppsViewController.self)
        let step7 = try await Self.handOversQueuedBehindAWarning(Lesson07CustomOperation.AppsViewController.self)
        #expect(step6.requests == 8)
        #expect(step7.requests == 8)
        // Step 6 fills the cache it has just emptied, and the screen, with the late results.
        #expect(step6.cachedAfterWarning == 8)
        #expect(step7.cachedAfterWarning == 0)
        #expect(step7.shownAfterWarning == 0)
    }

    /// Why the hand-over cannot ask `isCancelled` instead: by then the
    /// operation is finished, and cancelling a finished operation does nothing.
    @Test func cancellingAFinishedOperationDoesNothing() async throws {
        try await ExclusiveRun.run { _ in
            let operation = BlockOperation {}
            let queue = OperationQueue()
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                operation.completionBlock = { done.resume() }
                queue.addOperation(operation)
            }
            try await Changes.waitUntilFinished(operation, "the operation reads finished")
            operation.cancel()
            #expect(operation.isFinished)
            #expect(!operation.isCancelled)
        }
    }


    /// A flick ends with the table gliding to rest: the queue must resume
    /// then too, or the rows it stopped on never load.
    @Test func theQueueResumesWhenAFlingComesToRest() async {
        let scenario = Scenario(
            name: "fling-and-rest", summary: "flick down 20 rows, let it come to rest, wait",
            steps: [.settle(timeout: 5), .fling(toRow: 20, seconds: 1), .settle(timeout: 10)])
        let result = await ScenarioRunner.run(
            ScenarioSetup(
                lesson: "07", title: "custom Operation", controller: Lesson07CustomOperation.AppsViewController.self,
                scenario: scenario))
        #expect(result.report.ownIconsAtEnd == result.report.visibleRowsAtEnd)
        #expect(result.report.requestsStartedWhileScrolling == 0)
    }

    @Test func theControllerDoesNotOwnItsOperationsBackwards() async {
        let result = await Self.run(Lesson07CustomOperation.AppsViewController.self, .leaveWhileLoading)
        #expect(result.report.controllerFreed)
    }

    @Test func stillARelaunchDownloadsNothing() async {
        let result = await Self.run(Lesson07CustomOperation.AppsViewController.self, .relaunch)
        #expect(result.report.requestsAfterRelaunch == 0)
        #expect(result.report.ownIconsAtEnd == result.report.visibleRowsAtEnd)
        #expect(result.report.duplicateRequests == 0)
    }

    // MARK: exercise 7, the same measures as the learner's checker

    @Test func exercise7IsSolvedByStep7AndNotBeforeIt() async {
        let step6 = await ExerciseProof.imageList(7, Lesson06SandboxCache.AppsViewController.self)
        let step7 = await ExerciseProof.imageList(7, Lesson07CustomOperation.AppsViewController.self)
        ExerciseProof.expectEveryBugPresent(step6)
        ExerciseProof.expectSolved(step7)
    }
}

/// Step 7 with its memory-warning fix taken out: the warning empties the pool
/// but cancels nothing, and the delegate takes whatever comes, pool or not.
final class Step7WithoutItsFix: Lesson07CustomOperation.AppsViewController {
    override func didReceiveMemoryWarning() {
        operations.removeAll()
        imageCache.removeAll()
    }

    override func downloadOperation(_ operation: DownloadOperation, didFinishWith image: Image?) {
        downloadFinished(icon: operation.icon, image: image, at: operation.indexPath)
    }
}
