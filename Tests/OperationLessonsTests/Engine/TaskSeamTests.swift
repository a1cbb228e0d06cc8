import Foundation
import LessonKit
import LessonSupport
import TableKit
import Testing

/// The task seam hands the story only the run's own jobs: a task started
/// outside the run (another test's, in this process) keeps the pool, so a
/// run never waits for it, nor it for the run.
@Suite(.serialized) struct TaskSeamTests {
    @Test func aTaskStartedOutsideTheRunRunsBesideIt() async {
        let probe = ForeignTaskProbe.shared
        probe.reset()
        // Outside the run: a thread of the test's own starts a task once the run has begun.
        Thread.detachNewThread {
            probe.runBegan.wait()
            Task.detached { probe.foreignTaskRan.signal() }
        }
        var scenario = Scenario.standard
        scenario.steps = [.settle(timeout: 1)]
        _ = await ScenarioRunner.run(
            ScenarioSetup(
                lesson: "test", title: "foreign task", controller: WaitsForAForeignTask.self, scenario: scenario))
        #expect(probe.ranWhileTheRunWaited, "the task outside the run waited behind the run's main queue")
    }
}

/// What `WaitsForAForeignTask` and the test hand each other.
final class ForeignTaskProbe: @unchecked Sendable {
    static let shared = ForeignTaskProbe()
    private let lock = NSLock()
    private(set) var runBegan = DispatchSemaphore(value: 0)
    private(set) var foreignTaskRan = DispatchSemaphore(value: 0)
    private var ran = false

    var ranWhileTheRunWaited: Bool {
        get { lock.withLock { ran } }
        set { lock.withLock { ran = newValue } }
    }

    func reset() {
        lock.withLock {
            runBegan = DispatchSemaphore(value: 0)
            foreignTaskRan = DispatchSemaphore(value: 0)
            ran = false
        }
    }
}

/// As it loads (on the main queue, in the run), waits up to 10 s of wall
/// time for the task the test starts outside the run: a bound for the
/// failure, which otherwise would hold the main queue for good.
final class WaitsForAForeignTask: TableViewController, LessonController {
    init(environment: LessonEnvironment) {
        super.init(visibleRowCount: 1)
    }

    override func viewDidLoad() {
        super.viewDidLoad()
        let probe = ForeignTaskProbe.shared
        probe.runBegan.signal()
        probe.ranWhileTheRunWaited = probe.foreignTaskRan.wait(timeout: .now() + 10) == .success
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 0 }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
    }
}
