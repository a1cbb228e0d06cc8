import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import TableKit
import Testing

@testable import Lesson02AsyncPlaceholder
@testable import Lesson05OperationPool
@testable import Lesson07CustomOperation

/// Step 7's controller with its `maxConcurrentOperationCount = 3` line taken
/// out: its queue has no limit, the rest is step 7's.
final class Step7WithoutALimitController: Lesson07CustomOperation.AppsViewController, @unchecked Sendable {
    required init(environment: LessonEnvironment) {
        super.init(environment: environment)
        queue.maxConcurrentOperationCount = OperationQueue.defaultMaxConcurrentOperationCount
    }
}

/// A queue with no limit gets what a phone's Dispatch gives blocking work
/// (docs/architecture.md, "Threads"): every operation it is handed starts at
/// once, up to 64, whatever this machine's cores.
@Suite struct DeviceThreadsTests {
    /// A fast scroll over slow rows opens a request for every row it passes
    /// when the queue has no limit; step 5's limit holds it to 3.
    @Test func aFastScrollOpensARequestForEveryRowUntilALimitHoldsIt() async {
        let step2 = await SharedRuns.shared.result(Lesson02AsyncPlaceholder.AppsViewController.self, .fastScrollSlowRows)
        let step5 = await SharedRuns.shared.result(Lesson05OperationPool.AppsViewController.self, .fastScrollSlowRows)
        #expect(step2.report.maxInFlight == 56)
        #expect(step2.report.peakBlockedThreads == 56)
        #expect(step5.report.maxInFlight == 3)
    }

    /// The first screen's eight downloads start together: it fills in one latency.
    @Test func theFirstScreenOfAQueueWithNoLimitFillsInOneLatency() async {
        let step2 = await SharedRuns.shared.result(Lesson02AsyncPlaceholder.AppsViewController.self, .standard)
        #expect(step2.report.timeToAllVisibleMs == 500)
        #expect(step2.report.idealTimeToAllVisibleMs == 500)
    }

    /// Step 7 without its limit is as right as on a phone: the operations a
    /// memory warning cancels had not started their fetch, and nothing starts
    /// one after it.
    @Test func step7WithoutItsLimitPassesExercise7() async {
        let results = await ImageListChecks.check(
            exercise: 7,
            run: ImageListChecks.inProcess(
                Step7WithoutALimitController.self, exercise: 7, newProcesses: NewProcessRuns.play))
        #expect(!results.isEmpty)
        for failed in results where !failed.passed {
            Issue.record("\(failed.bug): \(failed.measured)")
        }
    }
}

/// Seventy downloads of one icon handed to a queue with no limit at once,
/// when the table first asks for a cell: more than a phone has threads for.
final class SeventyAtOnceController: IconListController, @unchecked Sendable {
    let queue = OperationQueue()
    private var handedOver = false

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
        cell.textLabel.text = "row \(indexPath.row)"
        cell.imageView.image = Image.placeholder
        guard !handedOver, let url = URL(string: icons[0]) else { return cell }
        handedOver = true
        let network = network
        for _ in 0..<70 { queue.addOperation { _ = try? network.data(contentsOf: url) } }
        return cell
    }
}

extension DeviceThreadsTests {
    /// The 65th operation waits for a thread: 64 downloads start at once, the
    /// other six when the first ones have finished, one latency later.
    @Test func past64TheRestWaitForAThread() async {
        let result = await HarnessTests.run(SeventyAtOnceController.self, HarnessTests.firstScreen)
        #expect(result.report.requests == 70)
        #expect(result.report.maxInFlight == 64, "a phone's thread limit")
        let starts = Dictionary(grouping: result.timeline.requests, by: \.startMs).mapValues(\.count)
        #expect(starts == [0: 64, 500: 6])
        #expect(result.report.clockNotes.isEmpty && result.report.stuck == nil)
    }
}
