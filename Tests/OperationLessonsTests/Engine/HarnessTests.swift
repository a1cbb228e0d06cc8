import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit
import Testing

// Controllers written for these tests, to check that the harness sees what it
// claims to see and that the story clock keeps its promises.

/// Fetches each row's icon inside `cellForRowAt`, on the main queue: the step 1
/// mistake. One row on screen, so each fetch is one stall of one latency.
final class MainQueueFetchingController: TableViewController, LessonController {
    let network: SlowNetwork
    let icons: [String]

    init(environment: LessonEnvironment) {
        network = environment.network
        icons = (try? AppCatalog.load(from: environment.catalogURL).entries.map(\.icon)) ?? []
        super.init(visibleRowCount: 1)
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 6 }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
        cell.textLabel.text = "row \(indexPath.row)"
        cell.imageView.image = (try? network.data(contentsOf: URL(string: icons[indexPath.row])!)).flatMap(Image.init)
        return cell
    }
}

/// Spends 100 ms of wall time in every `cellForRowAt`, asking nothing of the
/// network: the machine's time, which the story does not count.
final class MainQueueSleepingController: TableViewController, LessonController {
    init(environment: LessonEnvironment) {
        super.init(visibleRowCount: 1)
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 6 }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
        Thread.sleep(forTimeInterval: 0.1)
        cell.textLabel.text = "row \(indexPath.row)"
        return cell
    }
}

/// Downloads on a thread of its own and sets the icon, on the main queue, on
/// whatever cell it captured: if the cell was reused meanwhile, the icon lands
/// in another row (the step 2 bug). A thread is work the clock cannot see
/// waiting, so the report says its times are not exact.
final class CapturedCellController: TableViewController, LessonController {
    let network: SlowNetwork
    let icons: [String]

    init(environment: LessonEnvironment) {
        network = environment.network
        icons = (try? AppCatalog.load(from: environment.catalogURL).entries.map(\.icon)) ?? []
        super.init()
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { icons.count }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
        cell.textLabel.text = "row \(indexPath.row)"
        cell.imageView.image = Image.placeholder
        let network = network
        let url = icons[indexPath.row]
        let capturedCell = Unchecked(cell)
        Thread.detachNewThread {
            let image = (try? network.data(contentsOf: URL(string: url)!)).flatMap { Image(data: $0) }
            DispatchQueue.main.async { capturedCell.value.imageView.image = image }
        }
        return cell
    }
}

/// Does it right: the icon is kept by row and the row reloaded, so a late
/// icon can only ever land in its own row; the main queue is never blocked.
/// Downloads on an operation queue with a limit of `queueLimit`.
class ReloadRowController: TableViewController, LessonController, @unchecked Sendable {
    class var queueLimit: Int { 3 }
    let network: SlowNetwork
    let icons: [String]
    let queue = OperationQueue()
    /// Touched on the main queue only.
    private var images: [Int: Image] = [:]
    private var loading: Set<Int> = []

    required init(environment: LessonEnvironment) {
        network = environment.network
        icons = (try? AppCatalog.load(from: environment.catalogURL).entries.map(\.icon)) ?? []
        super.init()
        queue.maxConcurrentOperationCount = Self.queueLimit
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { icons.count }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
        let row = indexPath.row
        cell.textLabel.text = "row \(row)"
        cell.imageView.image = images[row] ?? Image.placeholder
        guard images[row] == nil, !loading.contains(row) else { return cell }
        loading.insert(row)
        // Weak from the start: a download still sleeping in the network must not keep the screen alive.
        download(icons[row]) { [weak self] image in
            guard let self else { return }
            loading.remove(row)
            guard let image else { return }
            images[row] = image
            self.tableView.reloadRows(at: [IndexPath(row: row)])
        }
        return cell
    }

    /// Fetches and decodes `url` off the main queue, then calls `deliver` on the main queue.
    func download(_ url: String, deliver: @escaping @Sendable (Image?) -> Void) {
        let network = network
        queue.addOperation {
            let image = (try? network.data(contentsOf: URL(string: url)!)).flatMap { Image(data: $0) }
            OperationQueue.main.addOperation { deliver(image) }
        }
    }
}

/// Does it right, but slowly: after each download its thread spends 25 ms
/// of CPU on the bytes (a slow decoder, or any decoder under Thread Sanitizer)
/// before handing them to the main queue. Two at a time.
final class SlowDecodingController: ReloadRowController, @unchecked Sendable {
    override class var queueLimit: Int { 2 }

    override func download(_ url: String, deliver: @escaping @Sendable (Image?) -> Void) {
        let network = network
        queue.addOperation {
            let data = try? network.data(contentsOf: URL(string: url)!)
            let decodeEnd = ContinuousClock.now + .milliseconds(25)
            while ContinuousClock.now < decodeEnd {}  // busy: a wait would be a sleep
            let image = data.flatMap { Image(data: $0) }
            OperationQueue.main.addOperation { deliver(image) }
        }
    }
}

/// Downloads on an operation queue with no limit (the tutorials' first queue).
final class UnlimitedQueueController: ReloadRowController, @unchecked Sendable {
    override class var queueLimit: Int { OperationQueue.defaultMaxConcurrentOperationCount }
}

/// After each download, an operation waits for its partner's answer (the
/// other of its pair: the queue runs two at a time) before it hands its own
/// over: two answers due together must be let out together, or the first
/// would wait until its rendezvous gives up.
final class WaitsForItsPartnerController: ReloadRowController, @unchecked Sendable {
    override class var queueLimit: Int { 2 }
    static let rendezvous = Rendezvous()

    override func download(_ url: String, deliver: @escaping @Sendable (Image?) -> Void) {
        let network = network
        queue.addOperation {
            let image = (try? network.data(contentsOf: URL(string: url)!)).flatMap { Image(data: $0) }
            Self.rendezvous.meet()
            OperationQueue.main.addOperation { deliver(image) }
        }
    }
}

/// Threads meet two by two; one that waits 2 s of wall time for its partner
/// gives up, and says so.
final class Rendezvous: @unchecked Sendable {
    private let condition = NSCondition()
    private var arrived = 0
    private(set) var gaveUp = 0

    func meet() {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        let pair = (arrived + 1) / 2
        condition.broadcast()
        let deadline = Date(timeIntervalSinceNow: 2)
        while arrived < 2 * pair {
            if !condition.wait(until: deadline) {
                gaveUp += 1
                return
            }
        }
    }
}

/// An operation that waits on something that never comes, a condition no
/// one signals: a hang, which the clock must stop and name. (A wait on a
/// `DispatchSemaphore` waits in the story instead: the harness hands out
/// semaphores itself.)
final class HangingController: ReloadRowController, @unchecked Sendable {
    final class Never: @unchecked Sendable {
        private let condition = NSCondition()
        private var released = false
        func wait() { condition.withLock { while !released { condition.wait() } } }
        func release() {
            condition.withLock {
                released = true
                condition.broadcast()
            }
        }
    }
    let never = Never()

    override func download(_ url: String, deliver: @escaping @Sendable (Image?) -> Void) {
        let never = never
        queue.addOperation { never.wait() }
    }

    deinit {
        never.release()
    }
}

/// In each frame that brings a row on screen, ends one operation (a
/// download held back until now, cancelled and waited for) and starts
/// another (30 ms of work on a worker thread): the queue holds as many
/// operations after the frame as before it, and the clock did not move.
/// Records the story time each piece of work started and ended at.
final class SwapsAnOperationInAFrameController: TableViewController, LessonController, @unchecked Sendable {
    let network: SlowNetwork
    let queue = OperationQueue()
    /// Never run: what the held-back operations wait for.
    private let never = BlockOperation {}
    /// Main queue only.
    private var held: [Int: Operation] = [:]
    private var shown: Set<Int> = []
    /// What every run of this controller recorded (one test plays it).
    static let spans = Spans()

    final class Spans: @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [(start: Double, end: Double)] = []
        func add(_ span: (start: Double, end: Double)) { lock.withLock { recorded.append(span) } }
        var all: [(start: Double, end: Double)] { lock.withLock { recorded } }
    }

    init(environment: LessonEnvironment) {
        network = environment.network
        super.init()
        queue.maxConcurrentOperationCount = 4
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 40 }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
        let row = indexPath.row
        cell.textLabel.text = "row \(row)"
        guard shown.insert(row).inserted else { return cell }
        if row < 8 {
            let waiting = BlockOperation {}
            waiting.addDependency(never)
            held[row] = waiting
            queue.addOperation(waiting)
            return cell
        }
        // One operation out (it runs, cancelled, on a worker: waited for here)…
        if let waiting = held[row - 8] {
            waiting.cancel()
            waiting.waitUntilFinished()
        }
        // …and one in.
        let network = network
        queue.addOperation {
            let start = network.now()
            Thread.sleep(forTimeInterval: 0.03)
            Self.spans.add((start, network.now()))
        }
        return cell
    }
}

/// Downloads on the queue of a helper object it holds (a library's), not on
/// a queue of its own.
final class LibraryQueueController: TableViewController, LessonController, @unchecked Sendable {
    final class Loader: @unchecked Sendable {
        let queue = OperationQueue()
        init() { queue.maxConcurrentOperationCount = 3 }
    }

    let network: SlowNetwork
    let icons: [String]
    let loader = Loader()

    required init(environment: LessonEnvironment) {
        network = environment.network
        icons = (try? AppCatalog.load(from: environment.catalogURL).entries.map(\.icon)) ?? []
        super.init()
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { icons.count }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
        cell.imageView.image = Image.placeholder
        let (network, url, row) = (network, icons[indexPath.row], indexPath.row)
        loader.queue.addOperation {
            let image = (try? network.data(contentsOf: URL(string: url)!)).flatMap { Image(data: $0) }
            OperationQueue.main.addOperation { [weak self] in
                self?.tableView.cellForRow(at: IndexPath(row: row))?.imageView.image = image
            }
        }
        return cell
    }
}

@Suite struct HarnessTests {
    static let firstScreen = Scenario(
        name: "first-screen", summary: "load the first screen", steps: [.settle(timeout: 5)])

    static func run(
        _ controller: any LessonController.Type, _ scenario: Scenario, latencyMs: Double? = nil,
        hangLimit: Duration = .seconds(30)
    ) async -> ScenarioResult {
        var options = LessonOptions()
        options.latencyMs = latencyMs
        var setup = ScenarioSetup(
            lesson: "test", title: "\(controller)", controller: controller, scenario: scenario, options: options)
        setup.hangLimit = hangLimit
        return await ScenarioRunner.run(setup)
    }

    /// The same scenario, played twice in one process, reports the same
    /// figures: everything but the wall time it took.
    @Test func theSameRunTwiceGivesTheSameReport() async {
        let first = await Self.run(ReloadRowController.self, .fastScrollSlowRows).report
        let second = await Self.run(ReloadRowController.self, .fastScrollSlowRows).report
        #expect(first.withoutWallTime == second.withoutWallTime)
        #expect(first.clockNotes.isEmpty && first.stuck == nil)
        #expect(first.requests > 0)
    }

    @Test func aMainQueueWaitingInTheNetworkDropsExactlyTheFramesOfTheWait() async {
        // Launch: row 0's fetch blocks the main queue for 300 ms. Then a drag
        // brings row 1 on screen: a second 300 ms, in the middle of a frame.
        let scenario = Scenario(
            name: "one-row-down", summary: "show row 0, drag row 1 into view",
            steps: [.pause(seconds: 0.1), .drag(toRow: 1, seconds: 0.1), .pause(seconds: 0.1)])
        let result = await Self.run(MainQueueFetchingController.self, scenario, latencyMs: 300)
        let report = result.report
        #expect(report.requests == 2 && report.requestsOnMainQueue == 2)
        // 300 ms is 18 frames: the first one shows late, the other 17 are dropped.
        #expect(report.blankFrames == 18)
        // The longest: the drag's, 300 ms after a frame that was on time.
        #expect(report.maxMainStallMs == 300)
        #expect(result.timeline.stalls.count == 2)
        #expect(report.frames > report.droppedFrames)
        #expect(report.controllerFreed)
        #expect(report.clockNotes.isEmpty)
    }

    @Test func wallTimeSpentOnTheMainQueueIsNotStoryTime() async {
        // 100 ms of wall time in each `cellForRowAt`: what it costs is how fast
        // this machine is, so the story does not count it (`frameWorkMaxWallMs` does).
        let scenario = Scenario(
            name: "one-row-down", summary: "show row 0, drag row 1 into view",
            steps: [.pause(seconds: 0.1), .drag(toRow: 1, seconds: 0.1), .pause(seconds: 0.1)])
        let report = await Self.run(MainQueueSleepingController.self, scenario).report
        #expect(report.maxMainStallMs == 0)
        #expect(report.droppedFrames == 0)
        #expect(report.frameWorkMaxWallMs >= 100)
    }

    @Test func aSlowDecoderCostsNoStoryTime() async throws {
        // Eight icons, two at a time, 500 ms each: four rounds, 2000 ms, however
        // long this machine's threads take over each body (25 ms of CPU here).
        let report = await Self.run(SlowDecodingController.self, Self.firstScreen).report
        #expect(report.requests == 8)
        #expect(report.ownIconsAtEnd == 8)
        #expect(report.timeToAllVisibleMs == 2000)
        #expect(report.maxInFlight == 2)
    }

    @Test func aQueueWithNoLimitStartsEveryOperationAtOnce() async {
        // A phone's Dispatch gives each blocking operation a thread (docs/architecture.md, "Threads"):
        // the first screen's eight icons are all asked for at once and come together, one latency later.
        let result = await Self.run(UnlimitedQueueController.self, Self.firstScreen)
        let report = result.report
        #expect(report.maxInFlight == 8)
        #expect(report.timeToAllVisibleMs == 500)
        let icons = AppCatalog.bundled().entries.map { SlowNetwork.resourceName($0.icon) }
        let rows = result.timeline.requests.map { request in icons.firstIndex(of: request.url) ?? -1 }
        #expect(rows.sorted() == Array(0..<8))
        #expect(result.timeline.requests.map(\.startMs) == Array(repeating: 0, count: 8))
        #expect(report.clockNotes.isEmpty)
    }

    @Test func answersDueTogetherAreLetOutTogether() async {
        let report = await Self.run(WaitsForItsPartnerController.self, Self.firstScreen).report
        #expect(report.ownIconsAtEnd == 8)
        #expect(report.timeToAllVisibleMs == 2000)
        #expect(WaitsForItsPartnerController.rendezvous.gaveUp == 0)
    }

    @Test func workTheClockCannotSeeIsSaidInTheReport() async {
        let report = await Self.run(CapturedCellController.self, .fastScrollSlowRows).report
        #expect(report.wrongImageFrames > 0)
        #expect(report.mainThreadViolations == 0)
        #expect(report.requests > report.uniqueURLs, "every reuse downloads again")
        #expect(report.clockNotes.contains { $0.contains("a Thread of the app's own") })
    }

    @Test func aControllerThatDoesNothingWrongReportsNoStallAndNoWrongIcon() async throws {
        let full = await Self.run(ReloadRowController.self, .fastScrollSlowRows)
        let report = full.report
        #expect(report.wrongImageFrames == 0)
        #expect(report.maxMainStallMs == 0 && report.droppedFrames == 0)
        #expect(report.mainThreadViolations == 0)
        #expect(report.duplicateRequests == 0)
        #expect(report.placeholderFrames == 1971, "the slow rows show their placeholder while they load")
        // The first screen was complete before the first flick: that is when
        // every visible row first showed its own icon, even though the script
        // starts moving the moment it sees it.
        let firstFlick = try #require(full.timeline.events.first { $0.label.hasPrefix("drag") })
        let allVisible = try #require(report.timeToAllVisibleMs)
        #expect(allVisible <= firstFlick.ms)
        #expect(report.controllerFreed)
    }

    /// A frame that ends one operation and starts another leaves the queues
    /// as long as it found them: the clock must still wait for the new work
    /// (it once took such a frame for an idle one and played the next at
    /// once: 1 run in 6 of step 10's memory-warning-then-scroll showed an icon
    /// a frame late).
    @Test func aFrameThatSwapsOneOperationForAnotherIsNotTakenForAnIdleOne() async throws {
        let scenario = Scenario(
            name: "four-rows-down", summary: "drag four rows down, wait",
            steps: [.pause(seconds: 0.1), .drag(toRow: 4, seconds: 0.3), .pause(seconds: 0.1)])
        let result = await Self.run(SwapsAnOperationInAFrameController.self, scenario)
        #expect(result.report.stuck == nil)
        let spans = SwapsAnOperationInAFrameController.spans.all
        #expect(spans.count == 4)
        #expect(spans.allSatisfy { $0.start == $0.end }, "story time moved while work ran: \(spans)")
    }

    /// A queue the controller does not hold itself is watched all the same:
    /// the harness sees its work where it is handed to Dispatch.
    @Test func aLibrarysQueueIsWatchedWithNoDeclaration() async {
        let report = await Self.run(LibraryQueueController.self, Self.firstScreen).report
        #expect(report.clockNotes.isEmpty)
        #expect(report.downloadQueueLimit == 3)
        #expect(report.timeToAllVisibleMs == 1500 && report.idealTimeToAllVisibleMs == 1500)
    }

    /// A scenario whose rows share an icon plays on a catalog where they do:
    /// one URL for both, each row judged by it.
    @Test func rowsThatShareAnIconShareItsURL() async {
        let report = await Self.run(ReloadRowController.self, .sharedIcon).report
        // This controller keeps icons by row: it downloads the shared one twice.
        #expect(report.uniqueURLs == 7 && report.requests == 8)
        #expect(report.ownIconsAtEnd == 8)
        #expect(report.bytes > report.uniqueBytes)
        #expect(report.wrongImageFrames == 0)
    }

    @Test func anAppThatNeverReachesTheNetworkIsStoppedAndNamed() async throws {
        let report = await Self.run(HangingController.self, Self.firstScreen, hangLimit: .milliseconds(500)).report
        let stuck = try #require(report.stuck)
        // The three blocked operations are named source by source, whatever else this test process (one main
        // queue, one task hook for every test) had queued at that moment and was named first.
        #expect(stuck.contains("Dispatch work off the main queue: 3, 0 of it waiting in the story"), "\(stuck)")
        #expect(report.summary.contains("stuck"))
    }

    @Test func iconURLsThatNeedPercentEncodingAreJudgedByWhatTheNetworkServes() async throws {
        // `URL(string:)` percent-encodes spaces and non-ASCII: the controller
        // fetches "…/%E5%BA%94…", the catalog says "…/应…". Both are one icon.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("apps.plist")
        let entries = (0..<12).map {
            AppEntry(name: "应用 \($0)", icon: "https://cdn.example.com/应用 \($0)/icon.png", download: "\($0)万")
        }
        try PropertyListEncoder().encode(entries).write(to: file)
        var scenario = Scenario(name: "first-screen", summary: "load the first screen", steps: [.settle(timeout: 5)])
        scenario.rowRules = [(rows: [3], behavior: .failFirst(1))]
        let report = await ScenarioRunner.run(
            ScenarioSetup(
                lesson: "test", title: "encoded URLs", controller: ReloadRowController.self, scenario: scenario,
                catalog: try AppCatalog.load(from: file))
        ).report
        #expect(report.wrongImageFrames == 0)
        #expect(report.failedRequests == 1, "the rule written with the catalog's spelling applies to the fetch")
        #expect(report.ownIconsAtEnd == report.visibleRowsAtEnd - 1, "all but row 3, which failed once")
    }

    /// The keys of the table under "## JSON report keys" in docs/cli.md.
    static func documentedReportKeys() throws -> Set<String> {
        try CLIDocs.tableKeys(under: "## JSON report keys")
    }

    static func jsonKeys(_ text: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(object as? [String: Any], "the report is a JSON object")
    }

    @Test func theJSONReportCarriesEveryDocumentedKey() async throws {
        let documented = try Self.documentedReportKeys()
        #expect(documented.count >= 30)
        let report = await Self.run(ReloadRowController.self, Self.firstScreen).report
        let object = try Self.jsonKeys(report.json())
        #expect(Set(object.keys) == documented)
        // Numbers are numbers, optional ones null when unmeasured; the report reads back whole.
        #expect(object["requests"] as? Int == report.requests)
        #expect(object["liveImageBytes"] is NSNull, "no memory warning in this scenario")
        #expect(object["measures"] is [String: Any])
        #expect(try JSONDecoder().decode(Report.self, from: Data(report.json().utf8)) == report)
    }

    @Test func aMeasureThatIsNotANumberKeepsTheJSONWhole() throws {
        // A step's own measure may divide by zero; the report must still print every key.
        var report = Report()
        report.measures = ["staleRatio": .nan, "growth": .infinity]
        let object = try Self.jsonKeys(report.json())
        #expect(Set(object.keys) == (try Self.documentedReportKeys()))
        let measures = try #require(object["measures"] as? [String: Any])
        #expect(measures["staleRatio"] as? String == "NaN")
        #expect(measures["growth"] as? String == "Infinity")
    }

    @Test func theExecutablesJSONCarriesEveryDocumentedKey() async throws {
        let documented = try Self.documentedReportKeys()
        let run = try await Rig.runProduct("Lesson01SyncLoad", ["--json", "--scenario", "offline"])
        #expect(run.status == 0, "\(run.standardError)")
        let object = try Self.jsonKeys(run.standardOutput)
        #expect(Set(object.keys) == documented)
        #expect(object["scenario"] as? String == "offline")
        #expect(object["requests"] as? Int == object["failedRequests"] as? Int, "offline: every request fails")
    }
}

/// Reads docs/cli.md, so the tests check the code against what the docs say.
enum CLIDocs {
    static let url = Rig.packageRoot.appendingPathComponent("docs/cli.md")

    /// The first column's `code` of each row of the table after `heading`.
    static func tableKeys(under heading: String) throws -> Set<String> {
        let text = try String(contentsOf: url, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(where: { $0.hasPrefix(heading) }) else {
            throw TestFailure("docs/cli.md has no heading '\(heading)'")
        }
        var keys: Set<String> = []
        for line in lines[(start + 1)...] {
            if line.hasPrefix("## ") { break }
            guard line.hasPrefix("| `") else { continue }
            let cell = line.dropFirst(3).prefix { $0 != "`" }
            keys.insert(String(cell))
        }
        return keys
    }
}

@Suite struct ScenarioDocsTests {
    /// docs/cli.md lists every named scenario, and only those: a learner picks
    /// `--scenario` from that table.
    @Test func everyNamedScenarioIsDocumented() throws {
        let documented = try CLIDocs.tableKeys(under: "## Scenarios")
        #expect(documented == Set(Scenario.all.map(\.name)))
    }
}

/// The readable summary a lesson prints counts in words a learner reads as
/// written: "1 memory warning", not "1 memory warnings".
@Suite struct ReportSummaryTests {
    @Test func countsOfOneReadSingular() {
        var report = Report()
        report.requests = 1
        report.uniqueURLs = 1
        report.maxInFlight = 1
        report.memoryWarnings = 1
        report.cellsCreated = 1
        report.diskCacheFiles = 1
        let summary = report.summary
        #expect(summary.contains("1 request for 1 icon,"))
        #expect(summary.contains("at most 1 request at once"))
        #expect(summary.contains("After the memory warning"))
        #expect(summary.contains("its table made 1 cell."))
        #expect(summary.contains("The disk cache holds 1 file"))
        report.requests = 28
        report.memoryWarnings = 3
        #expect(report.summary.contains("28 requests for 1 icon,"))
        #expect(report.summary.contains("After the last of 3 memory warnings"))
    }
}

extension Report {
    /// The report without what this machine's speed decides: the figures that
    /// are the same in every run.
    var withoutWallTime: Report {
        var report = self
        report.runWallMs = 0
        report.frameWorkMeanWallMs = 0
        report.frameWorkMaxWallMs = 0
        report.frameRecordingMeanWallMs = 0
        report.frameWorkMeanCPUMs = 0
        report.frameRecordingMeanCPUMs = 0
        report.cellForRowAtWallMs = 0
        report.mainQueueWriteStallWallMs = 0
        report.measures = report.measures.filter { !$0.key.hasSuffix("WallMs") }
        return report
    }
}

/// An asynchronous operation over the network's non-blocking fetch: `start()`
/// begins the fetch and returns; the operation finishes when the fetch does.
/// It holds no thread while it waits.
final class FetchOperation: Operation, @unchecked Sendable {
    let url: URL
    let network: SlowNetwork
    let deliver: @Sendable (Image?) -> Void
    /// Every progress report, in order: (bytes received, body size).
    let progress: Progress
    private let lock = NSLock()
    private var executing = false
    private var finished = false

    final class Progress: @unchecked Sendable {
        private let lock = NSLock()
        private var reports: [(Int, Int)] = []
        func add(_ report: (Int, Int)) { lock.withLock { reports.append(report) } }
        var all: [(Int, Int)] { lock.withLock { reports } }
    }

    init(url: URL, network: SlowNetwork, progress: Progress, deliver: @escaping @Sendable (Image?) -> Void) {
        self.url = url
        self.network = network
        self.progress = progress
        self.deliver = deliver
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { executing } }
    override var isFinished: Bool { lock.withLock { finished } }

    override func start() {
        willChangeValue(forKey: "isExecuting")
        lock.withLock { executing = true }
        didChangeValue(forKey: "isExecuting")
        _ = network.fetch(url, progress: { [progress] in progress.add(($0, $1)) }) { [self] result in
            deliver((try? result.get()).flatMap { Image(data: $0) })
            willChangeValue(forKey: "isExecuting")
            willChangeValue(forKey: "isFinished")
            lock.withLock {
                executing = false
                finished = true
            }
            didChangeValue(forKey: "isExecuting")
            didChangeValue(forKey: "isFinished")
        }
    }
}

/// Downloads with `FetchOperation`s, six at a time at most.
final class AsyncFetchController: ReloadRowController, @unchecked Sendable {
    override class var queueLimit: Int { 6 }
    static let progress = FetchOperation.Progress()

    override func download(_ url: String, deliver: @escaping @Sendable (Image?) -> Void) {
        queue.addOperation(
            FetchOperation(url: URL(string: url)!, network: network, progress: Self.progress) { image in
                OperationQueue.main.addOperation { deliver(image) }
            })
    }
}

@Suite struct AsyncFetchTests {
    @Test func aFetchThatBlocksNoThreadPlaysOnTheStoryClock() async {
        let first = await HarnessTests.run(AsyncFetchController.self, HarnessTests.firstScreen).report
        let reports = AsyncFetchController.progress.all
        let second = await HarnessTests.run(AsyncFetchController.self, HarnessTests.firstScreen).report
        // Six at once, then the last two: two rounds of 500 ms; no thread waits in the network.
        #expect(first.requests == 8 && first.ownIconsAtEnd == 8)
        #expect(first.maxInFlight == 6)
        #expect(first.peakBlockedThreads == 0)
        #expect(first.timeToAllVisibleMs == 1000)
        #expect(first.clockNotes.isEmpty)
        #expect(first.withoutWallTime == second.withoutWallTime)
        // Each body arrives in four pieces, the last one the whole body.
        #expect(reports.count == 8 * 4)
        #expect(reports.allSatisfy { $0.0 > 0 && $0.0 <= $0.1 })
        #expect(reports.filter { $0.0 == $0.1 }.count == 8)
    }
}
