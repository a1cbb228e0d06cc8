import Foundation
import HarnessSync
import HostOS
import TableKit
import TerminalKit


/// Standard output or standard error, written so that a failure is never lost.
///
/// `print` buffers and drops a failed write without a word (`--json >
/// /dev/full` exited 0), and `FileHandle.write` stops the program with a
/// `try!` when the stream is closed or full. Here each text goes out with
/// `write(2)` at once, the first failure is kept, and the program's exit
/// status says so (`StandardStreams.exitStatus`).
public struct StandardStream: Sendable {
    public static let output = StandardStream(descriptor: HostDescriptor.standardOutput, name: "standard output")
    public static let error = StandardStream(descriptor: HostDescriptor.standardError, name: "standard error")

    let descriptor: Int32
    public let name: String

    /// Writes all of `text`. After a failure nothing more is written to this
    /// stream (a screen redrawn 30 times a second would fail 30 times a second).
    @discardableResult
    public func write(_ text: some StringProtocol) -> Bool {
        write(bytes: Array(text.utf8))
    }

    /// Writes `data` as it is (a child's output passed on).
    @discardableResult
    public func write(_ data: Data) -> Bool {
        write(bytes: Array(data))
    }

    private func write(bytes: [UInt8]) -> Bool {
        guard failure == nil else { return false }
        guard !StandardStreams.withState({ $0.closedAtStart.contains(descriptor) }) else {
            StandardStreams.withState { $0.failures[descriptor] = "it is closed" }
            return false
        }
        guard let error = HostDescriptor.writeAll(bytes, to: descriptor) else { return true }
        StandardStreams.withState { $0.failures[descriptor] = $0.failures[descriptor] ?? error.description }
        return false
    }

    /// `text` and a newline.
    @discardableResult
    public func line(_ text: some StringProtocol = "") -> Bool {
        write(text + "\n")
    }

    /// `text` and a newline, each of its lines broken between words to fit
    /// the width of the terminal this stream goes to (`TerminalText.wrapped`);
    /// off a terminal (and without `COLUMNS`), as it is.
    @discardableResult
    public func line(wrapping text: some StringProtocol) -> Bool {
        line(TerminalText.wrapped(text, width: terminal.columns))
    }

    /// A message of one or more lines, every character printable (a path or
    /// a parser's complaint may hold anything, escape sequences included),
    /// fitted to the terminal's width.
    @discardableResult
    public func message(_ text: some StringProtocol) -> Bool {
        line(wrapping: TerminalText.printableLines(text))
    }

    /// What this stream goes to, as a terminal: its width, colours.
    public var terminal: TerminalOutput { TerminalOutput(descriptor: descriptor) }

    /// Why the first write that failed failed, if one did.
    public var failure: String? {
        StandardStreams.withState { $0.failures[descriptor] }
    }
}

public enum StandardStreams {
    fileprivate struct State {
        /// The first failure of each stream, by descriptor.
        var failures: [Int32: String] = [:]
        var closedAtStart: Set<Int32> = []
        var outputFailureSaid = false
    }

    private static let lock = Locked(.seen)
    nonisolated(unsafe) private static var state = State()

    fileprivate static func withState<Result>(_ body: (inout State) -> Result) -> Result {
        lock.withLock { body(&state) }
    }

    /// Call first thing. A stream that was closed when the program started
    /// fails every write to it. Its number may already be taken: an async
    /// `main` starts Dispatch first, and its epoll descriptor gets the lowest
    /// free number, 1 when standard output was closed (measured); a report
    /// written there would go to Dispatch. A descriptor still free gets
    /// `/dev/null`, so no file opened later takes its number; closed again on
    /// `exec` (`lessons run` becomes the step), so a program started from here
    /// finds the stream closed as it was given, not a `/dev/null` that swallows its report.
    public static func checkAtStart() {
        for descriptor in [HostDescriptor.standardOutput, HostDescriptor.standardError] {
            if !HostDescriptor.isOpen(descriptor) {
                withState { _ = $0.closedAtStart.insert(descriptor) }
                HostDescriptor.holdLowestFree()
            } else if HostDescriptor.isAnonymous(descriptor) {
                withState { _ = $0.closedAtStart.insert(descriptor) }
            }
        }
    }

    /// The status to exit with: `status`, or 1 when a write to standard output
    /// or standard error failed; a failed standard output is said in one line
    /// on standard error (when that works).
    public static func exitStatus(_ status: Int32, program: String) -> Int32 {
        let output = StandardStream.output.failure
        if let output, isFirstSaying() {
            StandardStream.error.line("\(program): cannot write to standard output: \(output)")
        }
        let failed = output != nil || StandardStream.error.failure != nil
        return failed && status == 0 ? 1 : status
    }

    /// True the first time only: the failure is said once, though a program
    /// may ask twice (the workbench runs a lesson's main).
    private static func isFirstSaying() -> Bool {
        withState { state in
            defer { state.outputFailureSaid = true }
            return !state.outputFailureSaid
        }
    }
}
