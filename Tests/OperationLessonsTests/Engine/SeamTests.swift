import DispatchSeam
import Foundation
@testable import LessonKit
import LessonSupport
import SlowNetwork
import TableKit
import Testing

// Controllers that keep their work where the harness has no way to look:
// the story clock must see it through the seams it owns (the network, the
// main queue, the Dispatch seam), with no declaration from the app.

/// A table of the catalog's rows, one icon each: what the controllers below
/// share.
class IconListController: TableViewController, LessonController, @unchecked Sendable {
    let network: SlowNetwork
    let icons: [String]

    required init(environment: LessonEnvironment) {
        network = environment.network
        icons = (try? AppCatalog.load(from: environment.catalogURL).entries.map(\.icon)) ?? []
        super.init()
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { icons.count }
}

/// A published tutorial's layout: the controller keeps both of its queues,
/// and the operations in progress, in a helper object. Downloads run three
/// at a time; each downloaded icon is decoded by an operation of a second
/// queue; the image and the reload are done on the main queue.
final class PendingOperationsController: IconListController, @unchecked Sendable {
    final class PendingOperations {
        var downloadsInProgress: [IndexPath: Operation] = [:]
        let downloadQueue: OperationQueue = {
            let queue = OperationQueue()
            queue.name = "Download queue"
            queue.maxConcurrentOperationCount = 3
            return queue
        }()
        let decodeQueue: OperationQueue = {
            let queue = OperationQueue()
            queue.name = "Decode queue"
            return queue
        }()
    }

    final class Download: Operation, @unchecked Sendable {
        let url: String
        let network: SlowNetwork
        var data: Data?

        init(url: String, network: SlowNetwork) {
            self.url = url
            self.network = network
        }

        override func main() {
            guard !isCancelled else { return }
            data = try? network.data(contentsOf: URL(string: url)!)
        }
    }

    let pendingOperations = PendingOperations()
    /// Touched on the main queue only.
    private var images: [Int: Image] = [:]


    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
        cell.textLabel.text = "row \(indexPath.row)"
        cell.imageView.image = images[indexPath.row] ?? Image.placeholder
        if images[indexPath.row] == nil { startDownload(for: indexPath) }
        return cell
    }

    private func startDownload(for indexPath: IndexPath) {
        guard pendingOperations.downloadsInProgress[indexPath] == nil else { return }
        let download = Download(url: icons[indexPath.row], network: network)
        download.completionBlock = { [weak self, weak download] in
            let data = download?.data
            OperationQueue.main.addOperation { [weak self] in self?.decode(data, for: indexPath) }
        }
        pendingOperations.downloadsInProgress[indexPath] = download
        pendingOperations.downloadQueue.addOperation(download)
    }

    private func decode(_ data: Data?, for indexPath: IndexPath) {
        pendingOperations.decodeQueue.addOperation { [weak self] in
            let image = data.flatMap { Image(data: $0) }
            OperationQueue.main.addOperation { [weak self] in
                guard let self else { return }
                self.pendingOperations.downloadsInProgress[indexPath] = nil
                guard let image else { return }
                self.images[indexPath.row] = image
                self.tableView.reloadRows(at: [indexPath])
            }
        }
    }
}

/// Exercise 5 solved with GCD instead of an OperationQueue: downloads on a
/// concurrent queue of its own, three at a time by a semaphore, the pool of
/// rows in progress and the cache on the main queue.
final class SemaphoreGCDController: IconListController, @unchecked Sendable {
    let downloads = DispatchQueue(label: "downloads", attributes: .concurrent)
    let slots = DispatchSemaphore(value: 3)
    /// Touched on the main queue only.
    private var images: [Int: Image] = [:]
    private var loading: Set<Int> = []


    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
        let row = indexPath.row
        cell.textLabel.text = "row \(row)"
        cell.imageView.image = images[row] ?? Image.placeholder
        guard images[row] == nil, !loading.contains(row) else { return cell }
        loading.insert(row)
        let (network, slots, url) = (network, slots, icons[row])
        downloads.async {
            slots.wait()
            let image = (try? network.data(contentsOf: URL(string: url)!)).flatMap { Image(data: $0) }
            slots.signal()
            DispatchQueue.main.async { [weak self] in
                guard let self else { return }
                self.loading.remove(row)
                guard let image else { return }
                self.images[row] = image
                self.tableView.reloadRows(at: [indexPath])
            }
        }
        return cell
    }
}

/// As a drag begins, the app's download thread hands `OperationQueue.main`
/// an operation that shows every row's icon, and the drag waits until it has.
class MainOperationOnDragController: IconListController, @unchecked Sendable {
    /// Whether another test's operation holds `OperationQueue.main` as the app's is handed over.
    class var anotherTestHoldsTheMainQueue: Bool { false }
    /// Touched on the main queue only.
    private var shown = false

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
        cell.imageView.image = shown ? Image(data: IconArt.ppm(for: icons[indexPath.row])) : Image.placeholder
        return cell
    }

    override func scrollViewWillBeginDragging(_ tableView: TableView) {
        if Self.anotherTestHoldsTheMainQueue {
            // From a thread of its own, as another test's task would: not the run's work.
            let queued = DispatchSemaphore(value: 0)
            Thread {
                OperationQueue.main.addOperation {}
                queued.signal()
            }.start()
            queued.wait()
        }
        let handedOver = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            OperationQueue.main.addOperation { [weak self] in
                self?.shown = true
                self?.tableView.reloadData()
            }
            handedOver.signal()
        }
        handedOver.wait()
    }
}

/// The same, with another test's operation holding `OperationQueue.main` as the app's is handed over.
final class MainOperationHeldOnDragController: MainOperationOnDragController, @unchecked Sendable {
    override class var anotherTestHoldsTheMainQueue: Bool { true }
}

/// A flag raised once, read from any thread.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var raised = false
    init() {}
    var isRaised: Bool { lock.withLock { raised } }
    func raise() { lock.withLock { raised = true } }
}

/// Both cores kept busy by threads of their own while `body`'s runs play: the
/// machine under load, as on a CI runner beside other work. The runs hold the
/// scenario gate from before the threads start: spinning while they waited
/// their turn would load the machine for every other test's run instead.
func withBusyCores<T>(_ body: () async -> T) async -> T {
    await ScenarioGate.holding {
        let stop = StopFlag()
        let spinners = (0..<2).map { _ in
            let thread = Thread {
                var counter = 0
                while !stop.isRaised { counter &+= 1 }
            }
            thread.start()
            return thread
        }
        let result = await body()
        stop.raise()
        _ = spinners
        return result
    }
}

/// Read between the main queue and the Dispatch work: as it is read, the
/// app's thread waiting at `answered` goes on, queues its main-queue block
/// and finishes, the order a main thread slow to read lets happen.
struct AnswerHeardAsItIsLooked: ActivitySource {
    let answered: Gate

    func busy(_ moment: ActivityMoment) -> String? {
        answered.open()
        while true {
            let changes = seam_generation()
            if seam_count().elsewhere == 0 { return nil }
            seam_wait_for_change(changes, 1_000_000_000)
        }
    }

    var hasWork: Bool { false }
    var summary: String { "" }
}

@Suite struct SeamTests {
    /// Plays `controller` twice idle and once with both cores busy; the three
    /// reports must be the same to the figure.
    static func exactRuns(_ controller: any LessonController.Type, _ scenario: Scenario) async -> [Report] {
        var reports: [Report] = []
        for _ in 0..<2 { reports.append(await HarnessTests.run(controller, scenario).report) }
        reports.append(await withBusyCores { await HarnessTests.run(controller, scenario).report })
        return reports
    }

    /// Another test's tasks hop to the main actor again and again while a
    /// story plays (Swift Testing runs suites side by side): their jobs reach
    /// the main queue from the pool, not from the run's work, and are not the
    /// app's. The story plays as it does alone, never held "busy" by them.
    @Test func mainActorJobsOfAnotherTestAreNotTheRunsWork() async {
        let alone = await HarnessTests.run(PendingOperationsController.self, HarnessTests.firstScreen).report
        // The hoppers start once the run is next at the gate, not while it waits behind other tests' runs.
        let beside = await ScenarioGate.holding {
            let stop = StopFlag()
            let hoppers = (0..<4).map { _ in
                Task.detached {
                    while !stop.isRaised { await MainActor.run {} }
                }
            }
            let beside = await HarnessTests.run(
                PendingOperationsController.self, HarnessTests.firstScreen, hangLimit: .seconds(5)
            ).report
            stop.raise()
            for hopper in hoppers { await hopper.value }
            return beside
        }
        #expect(beside.stuck == nil, "\(beside.stuck ?? "")")
        #expect(beside.withoutWallTime == alone.withoutWallTime)
    }

    /// Issue 33's flake with its racy order forced: `OperationQueue.main` runs
    /// one operation at a time for the whole process, and while another test's
    /// operation holds it, the one the app's thread hands it waits in the
    /// queue's list, where Dispatch (and so the seam) has not seen it yet. The
    /// story waits for it there too: the icons it shows are on the frame after
    /// the drag began, as when nothing else used the main queue.
    @Test func anOperationForTheMainQueueHeldBehindAnotherTestsIsTheRunsWork() async {
        let scenario = Scenario(
            name: "drag-in-place", summary: "a drag that does not move, then a pause",
            steps: [.pause(seconds: 0.1), .drag(toRow: 0, seconds: 0.1), .pause(seconds: 0.2)])
        let alone = await HarnessTests.run(MainOperationOnDragController.self, scenario).report
        let held = await HarnessTests.run(MainOperationHeldOnDragController.self, scenario, hangLimit: .seconds(5))
            .report
        #expect(held.stuck == nil, "\(held.stuck ?? "")")
        // Placeholders from the launch until the frame the drag begins on (133.3 ms), icons from the next.
        #expect(alone.ownIconsAtEnd == alone.visibleRowsAtEnd && alone.screen.timeToAllVisibleMs == 150)
        #expect(held.screen == alone.screen)
        #expect(held.durationMs == alone.durationMs)
    }

    /// Issue 33's flake in `aGCDLoaderWithASemaphorePlaysExact`, its order
    /// forced: the look reads its sources one by one, and on a slow main
    /// thread an app's thread that heard its answer queues its main-queue
    /// block after the main queue was read and finishes before the Dispatch
    /// work is. That look must not find the app idle, or the frame due at
    /// the answer's instant is drawn before the block shows the icon.
    @Test func workThatMovesFromOneSourceToAnotherAsTheyAreReadIsNotIdle() async {
        let look = await ExclusiveRun.run { _ in
            let run = seam_begin_run()
            defer { seam_end_run(run) }
            let answered = Gate()
            let saved = seam_enter_run()
            DispatchQueue.global().async {
                answered.wait()
                DispatchQueue.main.async {}
            }
            seam_restore(saved)
            let activity = AppActivity(
                clock: StoryClock(),
                sources: [MainQueueActivity(), AnswerHeardAsItIsLooked(answered: answered), DispatchWorkActivity()])
            return activity.look(mainThreadWaits: false)
        }
        #expect(look != .idle)
    }

    @Test func aControllerThatKeepsItsQueuesInAHelperObjectPlaysExact() async {
        let reports = await Self.exactRuns(PendingOperationsController.self, .fastScrollSlowRows)
        let first = reports[0]
        #expect(reports.allSatisfy { $0.withoutWallTime == first.withoutWallTime })
        #expect(first.clockNotes.isEmpty && first.stuck == nil)
        #expect(first.maxInFlight == 3, "the download queue's limit")
        #expect(first.downloadQueueLimit == 3)
        #expect(first.wrongImageFrames == 0 && first.duplicateRequests == 0)
    }

    @Test func aControllerThatUsesGCDAndASemaphorePlaysExact() async {
        let reports = await Self.exactRuns(SemaphoreGCDController.self, .fastScrollSlowRows)
        let first = reports[0]
        #expect(reports.allSatisfy { $0.withoutWallTime == first.withoutWallTime })
        #expect(first.clockNotes.isEmpty && first.stuck == nil)
        #expect(first.maxInFlight == 3, "the semaphore's count, not the threads the pool had")
        #expect(first.wrongImageFrames == 0 && first.duplicateRequests == 0)
    }

    /// The first screen of eight icons, three at a time in row order (the
    /// semaphore goes to the earliest submitted work): rows 0–2 at 0 ms, 3–5
    /// at 500 ms, 6 and 7 at 1000 ms. (Threads let go together reach the
    /// network in any order within their instant.)
    @Test func aSemaphoreOfThreeLetsThreeDownloadsGoAtOnceInRowOrder() async {
        let result = await HarnessTests.run(SemaphoreGCDController.self, HarnessTests.firstScreen)
        #expect(result.report.timeToAllVisibleMs == 1500)
        let icons = AppCatalog.bundled().entries.map { SlowNetwork.resourceName($0.icon) }
        let rowsByStart = Dictionary(grouping: result.timeline.requests, by: \.startMs).mapValues { requests in
            requests.map { icons.firstIndex(of: $0.url) ?? -1 }.sorted()
        }
        #expect(rowsByStart == [0: [0, 1, 2], 500: [3, 4, 5], 1000: [6, 7]])
    }
}

