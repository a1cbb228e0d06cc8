import Foundation
import TaskSeam

/// The Swift tasks' activity source: whether any job of a Swift task (a new
/// task, a child task, an actor's turn, a resumed continuation) is waiting to
/// run or running, seen through the runtime's `swift_task_enqueueGlobal_hook`
/// (`Sources/TaskSeam`). While a scenario runs, every such job the run's work
/// enqueues runs on the main queue, one at a time in the order it was
/// enqueued (another test's keep the pool), so tasks that
/// start together run in the same order in every run, and a story where a
/// task still has work to do does not move on (docs/architecture.md, "Swift
/// tasks"). Jobs of the main actor are the main queue's own work already.
public enum SwiftTaskActivity {
    /// Set to 1 by the race run (`RaceCheck.environment`): the tasks run on the global executor's threads, as on a
    /// device, so that Thread Sanitizer sees what they share touched at once. One at a time on the main queue, no
    /// task ever races another. That run's figures are then not exact; only its race reports are read.
    public static let onThePoolSetting = "OPERATION_LESSONS_TASKS_ON_THE_POOL"

    /// Starts watching the tasks. That the runtime exports the hook and calls it is a start-up probe of the
    /// toolchain contract (`ToolchainContract`, "task-hook"): no run starts without it.
    static func startWatching() {
        if ProcessInfo.processInfo.environment[onThePoolSetting] != "1" { task_seam_set_watching(1) }
    }

    /// Jobs enqueued from now on run on the global executor again.
    static func stopWatching() {
        task_seam_set_watching(0)
    }

    /// Jobs enqueued while watching that have not finished running.
    static var jobsWaiting: Int { task_seam_jobs_waiting() }

    static let isInstalled = task_seam_install() == 1
}
