/// Every fact of the toolchain that the seams rely on, once: what it is, where
/// it is used, what it was checked on, and how it is probed. docs/toolchain-contract.md
/// is this table (`ToolchainContractTests` checks it), and `lessons doctor` prints it with each probe's result.
public struct ToolchainFact: Sendable {
    /// When a fact is probed.
    public enum Probed: Sendable, Equatable {
        /// At the start of every step run, check run and test run: a failure refuses the run.
        case atEveryStart
        /// Only by `lessons doctor`, for the reason given (it takes too long for every start).
        case byDoctor(String)
        /// Not here: only a build or a crash this process is not can show it; the tests named check it.
        case byTests(String)
    }

    /// A short name, the one `OPERATION_LESSONS_BREAK` takes where a seam can break the fact on purpose.
    public let name: String
    public let what: String
    /// The files that rely on it.
    public let usedIn: [String]
    public let probed: Probed
    /// How the probe tells, in a phrase.
    public let probe: String
    let check: @Sendable () -> ProbeResult

    /// Runs the probe.
    public func run() -> ProbeResult { check() }
}

/// What a probe found.
public enum ProbeResult: Sendable, Equatable {
    case holds(String)
    case fails(String)
    /// Not probed in this process (a race build or a crash shows it), and why.
    case notHere(String)
}

public enum ToolchainContract {
    /// The toolchain every row was checked on.
    public static let checkedOn = "Swift 6.3.1, Linux x86_64"

    /// The environment switch that breaks facts on purpose, for the tests only: a comma-separated list of names.
    /// Only the seams read it.
    public static let breakSetting = "OPERATION_LESSONS_BREAK"

    public static let facts: [ToolchainFact] = [
        ToolchainFact(
            name: "dispatch-seam",
            what: "A program's own dispatch_async and relatives replace libdispatch's for every caller, Swift's "
                + "Dispatch and Foundation included (interposition by definition)",
            usedIn: ["Sources/DispatchSeam/DispatchSeam.c"], probed: .atEveryStart,
            probe: "a block handed to a DispatchQueue is counted by the seam",
            check: ToolchainProbes.interposition),
        ToolchainFact(
            name: "interceptor",
            what: "Under Thread Sanitizer, compiler-rt's interceptors answer to __interceptor_dispatch_async and "
                + "relatives (now a weak alias of ___interceptor_…), which the seam forwards to",
            usedIn: ["Sources/DispatchSeam/DispatchSeam.c"], probed: .atEveryStart,
            probe: "in a race build, dlsym finds __interceptor_dispatch_async and it is ___interceptor_'s",
            check: ToolchainProbes.interceptorNames),
        ToolchainFact(
            name: "main-queue",
            what: "Dispatch's main queue is the object _dispatch_main_q, the queue DispatchQueue.main and "
                + "OperationQueue.main submit to",
            usedIn: ["Sources/DispatchSeam/DispatchSeam.c", "Sources/TaskSeam/TaskSeam.c"], probed: .atEveryStart,
            probe: "a block handed to DispatchQueue.main is seen by the seam as the main queue's",
            check: ToolchainProbes.mainQueue),
        ToolchainFact(
            name: "overcommit",
            what: "dispatch_get_global_queue(qos, 2), libdispatch's private overcommit flag, gives the global "
                + "queue's overcommitting twin",
            usedIn: ["Sources/DispatchSeam/DispatchSeam.c"], probed: .atEveryStart,
            probe: "the queue the seam sends the run's blocks to is labelled ….overcommit",
            check: ToolchainProbes.overcommit),
        ToolchainFact(
            name: "block-abi",
            what: "A block is called through the invoke pointer after isa, flags and reserved, and copied and "
                + "released with BlocksRuntime's _Block_copy and _Block_release (the seam declares this by hand)",
            usedIn: ["Sources/DispatchSeam/DispatchSeam.c"], probed: .atEveryStart,
            probe: "a Swift closure called through the seam's declaration runs",
            check: ToolchainProbes.blockABI),
        ToolchainFact(
            name: "rename",
            what: "Foundation's Data.write(to:options: .atomic) ends in rename, which this program's own rename "
                + "replaces",
            usedIn: [
                "Sources/DispatchSeam/DispatchSeam.c", "Sources/LessonKit/Engine/RunSeams.swift",
                "Sources/LessonKit/Engine/MeasuredFigures.swift", "Sources/LessonKit/Engine/ScenarioRunner.swift",
            ],
            probed: .atEveryStart, probe: "an atomic write into a temporary folder reaches the seam's rename",
            check: ToolchainProbes.atomicWriteRenames),
        ToolchainFact(
            name: "inotify",
            what: "Linux's inotify reports a file opened and closed unwritten (a read) in a folder it watches, not in "
                + "the folders under it, and reports a folder made in a watched one, so that it can be watched in turn",
            usedIn: ["Sources/HostOS/Files.swift", "Sources/LessonKit/Watchers/DiskReadWatch.swift"],
            probed: .atEveryStart,
            probe:
                "a file read in a subfolder there at the start, and one in a subfolder made after, are each seen once",
            check: ToolchainProbes.diskReads),
        ToolchainFact(
            name: "task-hook",
            what: "The Swift runtime exports swift_task_enqueueGlobal_hook (and swift_job_run) and calls the hook "
                + "for every job bound for the global executor",
            usedIn: ["Sources/TaskSeam/TaskSeam.c", "Sources/LessonKit/Engine/SwiftTaskActivity.swift"],
            probed: .atEveryStart, probe: "Task.detached {} reaches the hook",
            check: ToolchainProbes.taskHook),
        ToolchainFact(
            name: "task-hook-alone",
            what: "Nothing else sets swift_task_enqueueGlobal_hook: the seam overwrites it without chaining",
            usedIn: ["Sources/TaskSeam/TaskSeam.c"], probed: .atEveryStart,
            probe: "the hook was empty when the seam installed itself",
            check: ToolchainProbes.taskHookAlone),
        ToolchainFact(
            name: "operation-queue",
            what: "swift-corelibs-foundation runs each operation as a Dispatch block, submitted once it can start, "
                + "and inside it OperationQueue.current is its queue",
            usedIn: [
                "Sources/LessonKit/Engine/AppActivity.swift", "Sources/LessonKit/Engine/StoryClock.swift",
                "Sources/LessonKit/Engine/SleepClock.swift", "Sources/LessonKit/Engine/WatchedWork.swift",
            ],
            probed: .atEveryStart,
            probe: "an operation added to a queue reaches the seam and sees its queue as current",
            check: ToolchainProbes.operationQueue),
        ToolchainFact(
            name: "launch-seed",
            what: "libswiftCore exports _swift_stdlib_Hashing_parameters (seed0, seed1, deterministic), which "
                + "hashing reads at every hash: written before any Swift code runs, a relaunch's new process gets "
                + "a seed of its own, the same in every run",
            usedIn: ["Sources/DispatchSeam/LaunchSeed.c", "Sources/LessonKit/Engine/CarriedLaunch.swift"],
            probed: .atEveryStart,
            probe: "the parameters are exported, deterministic as SWIFT_DETERMINISTIC_HASHING says, with this "
                + "launch's seed",
            check: ToolchainProbes.launchSeed),
        ToolchainFact(
            name: "pool-growth",
            what: "libdispatch's plain global queues add threads slowly (about one a second) once theirs block, "
                + "its overcommitting ones at once",
            usedIn: [
                "Sources/DispatchSeam/DispatchSeam.c", "Sources/DependencyTour/Tour.swift",
                "Lessons/02-async-with-placeholder.md", "Lessons/08-dependencies.md",
            ],
            probed: .byDoctor("it waits 0.3 s of wall time for threads that should not start"),
            probe: "blocking blocks: more than the cores on the plain queue wait, none on the overcommitting one",
            check: ToolchainProbes.poolGrowth),
        ToolchainFact(
            name: "tsan-wording",
            what: "Thread Sanitizer reports begin \"WARNING: ThreadSanitizer: data race\" (or \"Swift access "
                + "race\") and exit 66",
            usedIn: ["Sources/LessonChecks/Checks/RaceCheck.swift", "Sources/LessonChecks/Checks/RaceReport.swift"],
            probed: .byTests("ThreadSanitizerTests and RaceCrashTests, on race-built fixtures"),
            probe: "a race-built fixture's real report is read",
            check: { .notHere("race build only: ThreadSanitizerTests, RaceCrashTests") }),
        ToolchainFact(
            name: "tsan-frames",
            what: "In a race report, libFoundation's running of a BlockOperation shows as its mangled thunk "
                + "$sIegh_ytIeghr_TRTA in libFoundation.so",
            usedIn: ["Sources/LessonChecks/Checks/RaceReport.swift"],
            probed: .byTests("ThreadSanitizerTests and PortedRaceVerdictTests, on race-built fixtures"),
            probe: "a race-built fixture's real report is read",
            check: { .notHere("race build only: ThreadSanitizerTests") }),
        ToolchainFact(
            name: "backtrace",
            what: "The runtime's backtracer ends what it prints on a crash with \"Backtrace took\"",
            usedIn: ["Sources/LessonKit/Processes/ChildProcess.swift"],
            probed: .byTests("ChildProcessTests, which crashes a child on purpose"),
            probe: "a child crashed on purpose prints the line",
            check: { .notHere("needs a crash: ChildProcessTests crashes a child") }),
    ]

    /// Why no run may start in this process, in one sentence, or nil: the
    /// start-up probes, run once (a few milliseconds) before the first run.
    public static let refusal = refusal(among: facts)

    /// The refusal for the first of `facts` probed at every start whose probe fails.
    static func refusal(among facts: [ToolchainFact]) -> String? {
        for fact in facts where fact.probed == .atEveryStart {
            if case .fails(let finding) = fact.check() { return refusal(fact, finding) }
        }
        return nil
    }

    /// The contract as docs/toolchain-contract.md shows it: a row per fact.
    public static var markdownTable: String {
        let rows = facts.map { fact in
            let when =
                switch fact.probed {
                case .atEveryStart: "every start"
                case .byDoctor(let why): "`lessons doctor` only: \(why)"
                case .byTests(let tests): "by the tests: \(tests)"
                }
            let files = fact.usedIn.map { "`\($0)`" }.joined(separator: ", ")
            let breaks = breakable.contains(fact.name) ? " (`\(breakSetting)=\(fact.name)`)" : ""
            return "| `\(fact.name)` | \(fact.what) | \(files) | \(checkedOn) | \(fact.probe) | \(when)\(breaks) |"
        }
        return
            (["| Fact | What the seams rely on | Used in | Checked on | Probe | Probed |", "|---|---|---|---|---|---|"]
            + rows).joined(separator: "\n")
    }

    /// The facts a seam can break on purpose (`breakSetting`): every start-up one but the interceptor names (a race
    /// build's) and corelibs' operations, which no seam can change.
    public static let breakable = [
        "dispatch-seam", "main-queue", "overcommit", "block-abi", "rename", "task-hook", "task-hook-alone",
        "launch-seed",
    ]

    /// Whether `program` must refuse to run: if so, the refusal is said on standard error, as one sentence.
    public static func refuses(_ program: String) -> Bool {
        guard let refusal else { return false }
        StandardStream.error.message("\(program): \(refusal)")
        return true
    }

    static func refusal(_ fact: ToolchainFact, _ finding: String) -> String {
        "this toolchain breaks a fact the story clock relies on (\(fact.name): \(finding)), so no figure "
            + "would be true: run swift run lessons doctor (docs/toolchain-contract.md)"
    }
}
