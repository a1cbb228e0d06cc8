import Foundation

/// Runs a step's own executable (built beside `lessons`) as a child process and
/// reads its `--json` report.
///
/// A child process per run is the point: each step gets its own main queue,
/// its own image accounting and its own threads, so one step's stalls (step 1
/// blocks the main queue on purpose) or crashes (step 4's racy dictionary can
/// take its process down) never leak into another step's numbers.
public struct StepProcess: Sendable {
    /// The folder holding `lessons` and the step executables.
    public let directory: URL
    /// Run children on one CPU (with `taskset`, when the system has it). Their
    /// threads still overlap in time, so counts are unchanged, but two of them
    /// never write at the same instant: step 4's racy dictionary then cannot
    /// crash the run. For a test that asserts step 4's counts, not its race.
    public var pinnedToOneCPU = false
    /// Variables added to the child's environment.
    public var environment: [String: String] = [:]

    public init(directory: URL) {
        self.directory = directory
    }

    static let taskset = URL(fileURLWithPath: "/usr/bin/taskset")

    /// The step executables beside the running program (`lessons`, or the test bundle).
    public static func besideThisProgram() -> StepProcess {
        let program = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return StepProcess(directory: program.deletingLastPathComponent())
    }

    public func executable(for entry: LessonEntry) -> URL {
        directory.appendingPathComponent(entry.target)
    }

    /// The steps whose executables are missing, if any.
    public func missing(_ entries: [LessonEntry]) -> [LessonEntry] {
        entries.filter { !FileManager.default.isExecutableFile(atPath: executable(for: $0).path) }
    }

    /// Runs the step with `arguments` (plus `--json`) and returns its report,
    /// or what went wrong: a crash (signal), a non-zero exit, unreadable output.
    ///
    /// The child gets a Caches folder of its own (`XDG_CACHE_HOME`), removed
    /// afterwards: a disk-cache step starts cold, two runs of one step at once
    /// cannot share files, and the learner's own cache is left alone.
    public func run(_ entry: LessonEntry, arguments: [String]) -> Scoreboard.Outcome {
        let caches: URL
        do {
            caches = try ScratchFolder.make("OperationLessons-run")
        } catch {
            return .failed("cannot make a Caches folder for \(entry.target): \(error.localizedDescription)")
        }
        defer { ScratchFolder.remove(caches) }
        var child =
            pinnedToOneCPU && FileManager.default.isExecutableFile(atPath: Self.taskset.path)
            ? ChildProcess.scenario(Self.taskset, ["-c", "0", executable(for: entry).path] + arguments + ["--json"])
            : ChildProcess.scenario(executable(for: entry), arguments + ["--json"])
        child.environment.merge(environment.merging(["XDG_CACHE_HOME": caches.path]) { $1 }) { $1 }
        let finished: ChildProcess.Finished
        do {
            finished = try child.run()
        } catch {
            return .failed("cannot start \(entry.target): \(error)")
        }
        if let signal = finished.signal {
            return .failed("crashed (signal \(signal))")
        }
        // A Thread Sanitizer build catches the signal itself and exits instead.
        if finished.errors.contains("ThreadSanitizer:DEADLYSIGNAL") {
            return .failed("crashed (a signal Thread Sanitizer caught)")
        }
        guard finished.status == 0 else {
            let firstLine = finished.errors.split(separator: "\n").first.map(String.init) ?? ""
            return .failed("exit status \(finished.status): \(firstLine)")
        }
        guard let report = finished.report else { return .failed("it ended without handing over a report") }
        do {
            return .measured(try Report.decoded(from: report))
        } catch {
            return .failed("its report cannot be read (\(error.localizedDescription))")
        }
    }
}

extension StepProcess {
    /// Runs the step again after a crash, up to `attempts` runs in all: a
    /// racy step crashes now and then, and its numbers are still worth having.
    /// Returns the last outcome and how many runs crashed before it.
    public func runRetryingCrashes(
        _ entry: LessonEntry, arguments: [String], attempts: Int = 5
    ) -> (outcome: Scoreboard.Outcome, crashes: Int) {
        var crashes = 0
        while true {
            let outcome = run(entry, arguments: arguments)
            guard case .failed(let why) = outcome, why.hasPrefix("crashed"), crashes + 1 < attempts else {
                return (outcome, crashes)
            }
            crashes += 1
        }
    }
}
