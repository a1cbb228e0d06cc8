import Foundation
import LessonKit
import LessonSupport
import Testing

@testable import Lesson01SyncLoad
@testable import Lesson02AsyncPlaceholder
@testable import Lesson03ModelCache
@testable import Lesson05OperationPool
@testable import Lesson06SandboxCache
@testable import Lesson07CustomOperation
@testable import Lesson10WebImage
@testable import Lesson11SwiftConcurrency

/// The runs the scoreboard and bug-matrix tests read, each made once per test
/// process and shared: the standard scenario of step 3 serves four tests, and
/// runs in one process are serialized anyway (one main queue). In-process runs
/// come from the lesson tests' own memo (`SharedRuns`), so a run a lesson test
/// already made is not made again.
///
/// Steps run in process, except the ones in `inChildProcess`: step 4's racy
/// dictionary crashes its process in most runs on an idle two-core machine
/// (the bug step 5 fixes), and a crash must not take the whole test run with
/// it. Those run as their own executable, like `lessons scoreboard` runs every
/// step, pinned to one CPU so the race cannot strike while the counts these
/// tests assert (which do not depend on parallelism) are measured; a crashed
/// run is still run again, up to five times. In the TSan leg step 3 runs
/// there too: it writes its model from download threads, a race TSan would
/// report against this whole test run (it did, once).
enum ScoreboardRuns {
    static let controllers: [Int: any LessonController.Type] = [
        1: Lesson01SyncLoad.AppsViewController.self,
        2: Lesson02AsyncPlaceholder.AppsViewController.self,
        3: Lesson03ModelCache.AppsViewController.self,
        5: Lesson05OperationPool.AppsViewController.self,
        6: Lesson06SandboxCache.AppsViewController.self,
        7: Lesson07CustomOperation.AppsViewController.self,
        10: Lesson10WebImage.AppsViewController.self,
        11: Lesson11SwiftConcurrency.AppsViewController.self,
    ]
    static let inChildProcess: Set<Int> = ThreadSanitizer.isOn ? [3, 4] : [4]

    /// The steps these tests can run.
    static var steps: [Int] { Set(controllers.keys).union(inChildProcess).sorted() }

    struct Key: Hashable, Sendable {
        let step: Int
        let scenario: String
    }

    /// The report of `step` on `scenario`, seed 1, made once (`SharedRuns`); nil (with the reason
    /// recorded as an issue of the calling test) when it could not be run.
    static func report(step: Int, scenario: String) async -> Report? {
        switch await outcome(Key(step: step, scenario: scenario)) {
        case .measured(let report): return report
        case .failed(let why):
            Issue.record("step \(step) on \(scenario): \(why)")
            return nil
        }
    }

    /// Plays `keys` side by side, so that later `report` calls read them: the child processes overlap one
    /// another and the runs played in this process, which take their turns at the scenario gate meanwhile.
    static func playAtOnce(_ keys: some Collection<Key>) async {
        await withTaskGroup(of: Void.self) { group in
            for key in Set(keys) { group.addTask { _ = await outcome(key) } }
        }
    }

    private static func outcome(_ key: Key) async -> Scoreboard.Outcome {
        await SharedRuns.shared.memo("scoreboard · step \(key.step) · \(key.scenario)") { await measure(key) }
    }

    private static func measure(_ key: Key) async -> Scoreboard.Outcome {
        guard let entry = LessonCatalog.entry(key.step), let scenario = Scenario.named(key.scenario) else {
            return .failed("no such step or scenario")
        }
        if let controller = controllers[key.step], !inChildProcess.contains(key.step) {
            return .measured(await SharedRuns.shared.result(controller, scenario).report)
        }
        let children = {
            var children = StepProcess.besideThisProgram()
            children.pinnedToOneCPU = true
            // Under the TSan leg the step is TSan-built too, and its race (the
            // one ThreadSanitizerTests expects) would end it with exit status
            // 66; here only its counts are asked for.
            if ThreadSanitizer.isOn { children.environment["TSAN_OPTIONS"] = "report_bugs=0" }
            return children
        }()
        guard children.missing([entry]).isEmpty else {
            return .failed("\(entry.target) is not built beside the tests (\(children.directory.path))")
        }
        let arguments = ["--scenario", key.scenario, "--seed", "1", "--clear-cache"]
        // Waited for on a thread of its own: a dispatch worker blocked here
        // for seconds would be one fewer for the operation queues of the
        // steps running in process meanwhile.
        let outcome = await withCheckedContinuation { done in
            Thread.detachNewThread {
                done.resume(returning: children.runRetryingCrashes(entry, arguments: arguments))
            }
        }
        if case .failed(let why) = outcome.outcome { return .failed("\(why), after \(outcome.crashes) crashed runs") }
        return outcome.outcome
    }
}
