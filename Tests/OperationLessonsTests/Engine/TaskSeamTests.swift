import Foundation
import LessonKit
import LessonSupport
import TableKit
import Testing

/// The task seam hands the story only the run's own jobs: a task started
/// outside the run (another test's, in this process) keeps the pool, so a
/// run never waits for it, nor it for the run. Judged by where the task ran
/// (a job handed to the story runs on the main queue), not by how soon: at
/// the suite's start every test's job shares Swift's two cooperative threads,
/// and a foreign task may wait for one longer than the run does.
@Suite(.serialized) struct TaskSeamTests {
    @Test func aTaskStartedOutsideTheRunRunsBesideIt() async {
        let probe = ForeignTaskProbe.shared
        probe.reset()
        _ = ForeignTaskProbe.mainQueueKey
        // Outside the run: a thread of the test's own starts a task once the run has begun. At a priority above
        // the tests' own, so on threads of its own: at the default one it waited for one of the two threads every
        // test shares, up to the run's 10 s bound, the scenario gate held (10.0 s at a whole suite's start).
        Thread.detachNewThread {
            probe.runBegan.wait()
            Task.detached(priority: .high) {
                probe.ranOnTheMainQueue = DispatchQueue.getSpecific(key: ForeignTaskProbe.mainQueueKey) != nil
                probe.foreignTaskRan.signal()
                probe.foreignTaskEnded.signal()
            }
        }
        var scenario = Scenario.standard
        scenario.steps = [.settle(timeout: 1)]
        _ = await ScenarioRunner.run(
            ScenarioSetup(
                lesson: "test", title: "foreign task", controller: WaitsForAForeignTask.self, scenario: scenario))
        // A hang guard, not a timing: the task runs once a cooperative thread is free. Waited for on a thread of
        // its own: blocked here, this test would hold one of the two threads the task needs.
        let ended = await Rig.onThread { probe.foreignTaskEnded.wait(timeout: .now() + 60) }
        #expect(ended == .success, "the task outside the run never ran")
        #expect(!probe.ranOnTheMainQueue, "the task outside the run was handed to the story's main queue")
    }
}

/// What `WaitsForAForeignTask` and the test hand each other.
final class ForeignTaskProbe: @unchecked Sendable {
    static let shared = ForeignTaskProbe()
    private let lock = NSLock()
    private(set) var runBegan = DispatchSemaphore(value: 0)
    private(set) var foreignTaskRan = DispatchSemaphore(value: 0)
    private(set) var foreignTaskEnded = DispatchSemaphore(value: 0)
    private var onMain = false

    /// Marks the main queue, whichever thread drains it (under the test runner, not always the main thread).
    static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    var ranOnTheMainQueue: Bool {
        get { lock.withLock { onMain } }
        set { lock.withLock { onMain = newValue } }
    }

    func reset() {
        lock.withLock {
            runBegan = DispatchSemaphore(value: 0)
            foreignTaskRan = DispatchSemaphore(value: 0)
            foreignTaskEnded = DispatchSemaphore(value: 0)
            onMain = false
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
        // Held while the task is started, so a job handed to the story could only run after this wait.
        _ = probe.foreignTaskRan.wait(timeout: .now() + 10)
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 0 }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
    }
}
