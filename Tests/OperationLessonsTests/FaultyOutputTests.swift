import Foundation
import LessonKit
import SlowNetwork
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Where a run writes: a full or closed stream. A failure is said and shows
/// in the exit status, never a crash, never silence.
@Suite struct FaultyOutputTests {
    /// A product run by `sh`, its streams redirected as a shell does (`> /dev/full`, `>&-`).
    static func run(_ product: String, _ arguments: [String], redirection: String) async throws -> Rig.ProcessResult {
        let executable = Rig.productsDirectory.appendingPathComponent(product).path
        var child = ChildProcess(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \"$0\" \"$@\" \(redirection)", executable] + arguments)
        child.environment = [
            "XDG_CACHE_HOME": FileManager.default.temporaryDirectory.appendingPathComponent(
                "faulty-output-caches"
            ).path
        ]
        let finished = try await child.finished(watchdog: Watchdog(limit: .seconds(120)))
        return Rig.ProcessResult(
            status: finished.signal.map { 128 + $0 } ?? finished.status, standardOutput: finished.output,
            standardError: finished.errors)
    }

    static let quick = ["--scenario", "offline", "--offline"]

    struct Case: Sendable, CustomTestStringConvertible {
        let product: String
        let arguments: [String]
        let redirection: String
        let status: Int32
        /// The one line on standard error (nil: nothing, it was closed or full).
        let message: String?

        var testDescription: String { "\(product) \(arguments.joined(separator: " ")) \(redirection)" }
    }

    static let cases: [Case] = [
        Case(
            product: "Lesson02AsyncPlaceholder", arguments: ["--json"] + quick, redirection: "> /dev/full", status: 1,
            message: "Lesson02AsyncPlaceholder: cannot write to standard output: No space left on device"),
        Case(
            product: "Lesson02AsyncPlaceholder", arguments: ["--plain"] + quick, redirection: ">&-", status: 1,
            message: "Lesson02AsyncPlaceholder: cannot write to standard output: it is closed"),
        Case(
            product: "Lesson08Dependencies", arguments: ["--json", "--part", "chain", "--speed", "20"],
            redirection: "> /dev/full", status: 1,
            message: "Lesson08Dependencies: cannot write to standard output: No space left on device"),
        Case(
            product: "Workbench", arguments: ["--help"], redirection: ">&-", status: 1,
            message: "Workbench: cannot write to standard output: it is closed"),
        // Errors with nowhere to go: the status still says what happened.
        Case(
            product: "Lesson02AsyncPlaceholder", arguments: ["--bogus"], redirection: "2> /dev/full", status: 2,
            message: nil),
        // Nothing to say, nothing failed: a closed standard error is no error.
        Case(
            product: "Lesson02AsyncPlaceholder", arguments: ["--json"] + quick, redirection: "2>&-", status: 0,
            message: nil),
    ]

    @Test(arguments: cases)
    func aWriteThatFailsIsAnErrorNeverACrash(_ test: Case) async throws {
        let run = try await Self.run(test.product, test.arguments, redirection: test.redirection)
        #expect(run.status == test.status, "\(run.standardError.prefix(300))")
        if let message = test.message {
            #expect(run.standardError == message + "\n")
        } else {
            #expect(run.standardError.isEmpty)
        }
    }

}
