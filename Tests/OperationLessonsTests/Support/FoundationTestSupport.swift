import Dispatch
import Foundation
import TableKit

@testable import LessonKit

/// Helpers for the tests of the shared modules (SlowNetwork, TableKit, LessonKit).
enum Rig {
    /// Runs blocking work on a thread of its own, so a test that waits on the
    /// simulated network does not hold one of Swift Testing's few cooperative
    /// threads (two on this machine) while it sleeps.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: body()) }
        }
    }

    /// The package's root folder, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Where `swift build` / `swift test` put the executables: beside the test bundle.
    static var productsDirectory: URL {
        let runner = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return runner.resolvingSymlinksInPath().deletingLastPathComponent()
    }

    struct ProcessResult: Sendable {
        /// The exit status, or 128 + the signal that ended it, as a shell says it.
        let status: Int32
        let standardOutput: String
        let standardError: String
        /// The signal that ended it (a crash, or the time limit's SIGTERM); nil if it exited.
        var signal: Int32? = nil
    }

    /// The tests' one way to run a built executable of this package: as a child process (`ChildProcess`),
    /// its output collected in files (a Thread Sanitizer report can be larger than a pipe holds).
    /// One that runs past `timeLimit` is stopped (its status then says the signal, 128 + 15).
    static func runProduct(
        _ name: String, _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil,
        timeLimit: Duration = .seconds(300)
    ) async throws -> ProcessResult {
        let executable = productsDirectory.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw TestFailure("\(executable.path) is not built (run `swift build` first)")
        }
        var child = ChildProcess(executable, arguments)
        child.environment = environment
        child.directory = directory
        let finished = try await child.finished(watchdog: Watchdog(limit: timeLimit))
        return ProcessResult(
            status: finished.signal.map { 128 + $0 } ?? finished.status, standardOutput: finished.output,
            standardError: finished.errors, signal: finished.signal)
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Hands a non-Sendable value to another thread on purpose: the tests below
/// reproduce the tutorials' unchecked sharing (a cell captured by a download)
/// to show that the harness notices it.
struct Unchecked<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
