import DispatchSeam
import Foundation
import HostOS
import SlowNetwork

/// A relaunch is a new process, as on a phone: the process that plays the
/// story replaces itself (`execv` of its own executable, same arguments, same
/// PID, its standard streams and report channel still open) with one that
/// launches the app again on the same caches folder. Nothing of the app's
/// first process survives: its statics and singletons, its memory caches, its
/// threads and queued work, its hash seed (DispatchSeam's LaunchSeed.c).
/// What the story needs to go on is carried across in a file: the story's
/// time and place in the script, the network's requests and plug, and what
/// the watchers had recorded, so that one report covers every launch; for a
/// table played by hand, the keys and the terminal's own modes too.
public struct CarriedLaunch: Codable, Sendable {
    /// The story's time at the relaunch, in nanoseconds.
    var storyNs: Int64
    /// The script's step after the relaunch.
    var nextStep: Int
    var events: ScriptEvents
    var frames: FrameRecorder.Carried
    var watcher: TableWatcher.Carried
    /// The keys of a table played by hand (`lessons play`): those played and those still to come.
    var keys: PlayKeys.Carried?
    /// The rows slowed so far (`lessons play`'s `s`), slowed again in the new process.
    var slowedRows: [[Int]]
    /// The requests so far. Those in flight died with the process that made
    /// them, as on a phone: they are logged as failed at the relaunch, with
    /// `Request.endedWithItsProcess` as their error, and never answer.
    var requests: [Request]
    var offline: Bool
    /// The catalog file the app reads (a `--catalog`'s copy, `CatalogSnapshot`): the new process reads the same.
    var catalog: String
    var earlier: EarlierLaunches

    /// Where the file's path is handed to the new process.
    static let fileVariable = "OPERATIONLESSONS_CARRIED_LAUNCH"
    static let filePrefix = "OperationLessons-launch-"

    var storyTime: StoryTime { StoryTime(nanoseconds: storyNs) }

    /// What an earlier process of the app carried into this one, if a
    /// relaunch started it; the file is removed once read.
    public static func fromEnvironment() throws -> CarriedLaunch? {
        guard let path = ProcessInfo.processInfo.environment[fileVariable], !path.isEmpty else { return nil }
        // Only a file a relaunch wrote is read, and removed: never one the variable names by mistake.
        guard URL(fileURLWithPath: path).lastPathComponent.hasPrefix(filePrefix) else {
            throw CarriedLaunchError(message: "\(fileVariable) names \(path), which no relaunch wrote")
        }
        defer {
            HostFiles.remove(path)
            HostProcess.removeFromEnvironment(fileVariable)
        }
        do {
            return try JSONDecoder().decode(CarriedLaunch.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw CarriedLaunchError(
                message: "cannot read what the app's last process carried across its relaunch from \(path): "
                    + "\(error.localizedDescription)")
        }
    }

    /// Replaces this process with the app's next launch; returns only if it
    /// cannot, with why, in a sentence.
    func startNewProcess() -> String {
        guard seam_launch_seed_is_available() != 0 else {
            return "this Swift runtime does not export _swift_stdlib_Hashing_parameters, so a relaunch could not "
                + "get a hash seed of its own as a new process does: the relaunch is not played"
        }
        let launch = seam_launch_number() + 1
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "\(Self.filePrefix)\(HostProcess.id)-\(launch).json")
        do {
            try JSONEncoder().encode(self).write(to: file)
        } catch {
            return "cannot write what the relaunch carries to \(file.path): \(error.localizedDescription)"
        }
        HostProcess.setEnvironment(SEAM_LAUNCH_VARIABLE, to: "\(launch)")
        HostProcess.setEnvironment(Self.fileVariable, to: file.path)
        // A terminal in raw mode stays raw across: the new process puts back the modes the first one found.
        RawTerminal.handSavedModesOn()
        // What the app printed and stdio still holds (`print` to a pipe is buffered) goes out before the process ends.
        HostProcess.flushStandardIO()
        let problem = HostProcess.replace(with: "/proc/self/exe", arguments: CommandLine.arguments)
        HostFiles.remove(file.path)
        return "cannot start the app's new process for the relaunch: \(problem)"
    }
}

struct CarriedLaunchError: Error, CustomStringConvertible, Sendable {
    let message: String
    var description: String { message }
}

/// Counts of the app's earlier processes that the report adds to its last
/// process's own (the rest of the report is carried as it was recorded).
struct EarlierLaunches: Codable, Sendable {
    var cellRequests = 0
    var mainThreadViolations = 0
    /// The caches folder's files as the first launch began.
    var diskCacheFilesAtStart = 0
    /// Nil once a process could not watch its reads throughout.
    var diskReads: Int? = 0
    var diskReadFiles: [DiskReadFile]? = []
    var mainQueueFileWrites = 0
    /// The longest a main-queue block that wrote a file held the main queue, in wall nanoseconds.
    var longestMainQueueWriteNs: UInt64 = 0
    var requestsFromUnseenWork = 0
    /// The first launch's download queue limit.
    var downloadQueueLimit: Int?
    /// The wall time the earlier processes took (`runWallMs`).
    var runWallMs = 0.0
}

extension Request {
    /// The error of a request still in flight when the app's process ended.
    static let endedWithItsProcess = "the app's process ended (a relaunch) before its answer came"

    /// Ended with the app's process at `ms`, if it was still in flight.
    func endingWithItsProcess(atMs ms: Double) -> Request {
        guard outcome == .inFlight else { return self }
        var ended = self
        ended.endMs = ms
        ended.outcome = .failed
        ended.error = Self.endedWithItsProcess
        return ended
    }
}
