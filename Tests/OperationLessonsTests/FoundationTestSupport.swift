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

    /// Runs `body` while no scenario is running, with a fresh `Instruments`
    /// installed as the current one.
    ///
    /// Images sign in with `Instruments.current` and UI touched off the main
    /// queue is recorded there: a test that makes images or touches UI from a
    /// background thread while another test's scenario runs would be counted
    /// in that scenario's report. Taking the scenario gate keeps both apart.
    static func withInstruments<T: Sendable>(_ body: (Instruments) async throws -> T) async throws -> T {
        await ScenarioGate.shared.enter()
        let instruments = Instruments()
        Instruments.current = instruments
        let result: Result<T, any Error>
        do {
            result = .success(try await body(instruments))
        } catch {
            result = .failure(error)
        }
        Instruments.current = nil
        await ScenarioGate.shared.leave()
        return try result.get()
    }

    /// The package's root folder, found from this file's path.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Where `swift build` / `swift test` put the executables: beside the test bundle.
    static var productsDirectory: URL {
        let runner = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return runner.resolvingSymlinksInPath().deletingLastPathComponent()
    }

    struct ProcessResult: Sendable {
        let status: Int32
        let standardOutput: String
        let standardError: String
    }

    /// Runs a built executable of this package as a child process (`ChildProcess`) and collects its output.
    /// One that runs past `timeLimit` is stopped (its status then says the signal, 128 + 15).
    static func runProduct(
        _ name: String, _ arguments: [String], environment: [String: String] = [:],
        timeLimit: Duration = .seconds(300)
    ) async throws -> ProcessResult {
        let executable = productsDirectory.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw TestFailure("\(executable.path) is not built (run `swift build` first)")
        }
        var child = ChildProcess(executable, arguments)
        child.environment = environment
        let finished = try await child.finished(watchdog: Watchdog(limit: timeLimit))
        return ProcessResult(
            status: finished.signal.map { 128 + $0 } ?? finished.status, standardOutput: finished.output,
            standardError: finished.errors)
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
