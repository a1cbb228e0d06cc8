import Foundation
import LessonKit

/// Exercise 11's bug, which no scenario can show: code the story plays one
/// task at a time measures as race-free, whatever it would do on real
/// threads. The Swift 6 compiler judges it instead: the workbench is built
/// again in the Swift 6 language mode (complete concurrency checking), and
/// its errors in the learner's files are the verdict, in the compiler's words.
/// A full build: `-typecheck` alone misses the region checks (`Tests/Fixtures/Swift6`).
public enum Swift6Check {
    /// What the workbench's manifest reads to compile the learner's code in the Swift 6 mode.
    public static let environment = ["WORKBENCH_SWIFT_MODE": "6"]

    /// The build, as a learner types it.
    public static let command = "WORKBENCH_SWIFT_MODE=6 swift build --package-path \(WorkbenchLayout.package)"

    public static let bug = BugText(
        name: "the compiler cannot prove it free of data races",
        expected: "no error in the Swift 6 language mode",
        why:
            "Every scenario plays the loader's tasks one at a time, so a loader that lets two tasks touch its "
            + "dictionaries at once measures the same as one that cannot. In the Swift 6 language mode the compiler "
            + "checks that no value is shared by two tasks unless something keeps them apart; an actor does: only "
            + "its own code touches its state, one call at a time, and a caller from outside awaits its turn.",
        hints: Hints(
            question:
                "Which type holds the memory cache and the downloads in flight, and what keeps two tasks from "
                + "touching them at once? The compiler can only trust what the type declares.",
            place: CodePlace(
                "class IconLoader", in: "IconLoader.swift",
                role: "the type that holds the memory cache and the downloads in flight"),
            api:
                "An `actor` is a class whose state only its own methods touch, one call at a time: from outside, "
                + "each call is `await`ed, even a call to a method that is not `async`. Nothing else changes: the "
                + "loader's tasks, continuations and cancellation handler stay as they are.",
            code: [
                "actor IconLoader {",
                "Task { await self.leave(url, caller) }",
                "Task { await loader.setPaused(paused) }",
            ]))

    /// One error the compiler gave in the learner's files.
    public struct CompilerError: Sendable, Equatable {
        /// Relative to the lessons' package: "Workbench/Sources/Workbench/IconLoader.swift".
        public let file: String
        public let line: Int
        public let column: Int
        /// The compiler's words, without the name of their diagnostic group.
        public let message: String

        /// "Workbench/Sources/Workbench/IconLoader.swift:65:26: capture of 'self' …".
        public var said: String { "\(file):\(line):\(column): \(message)" }
    }

    /// The build of the workbench in the Swift 6 mode, its log and standard
    /// error in one (`judge` reads it). It shares the ordinary build's folder:
    /// only the learner's module is compiled again, in a few seconds.
    public static func build(root: URL) -> ChildProcess {
        var build = ChildProcess(command: ["swift", "build", "--package-path", WorkbenchLayout.package])
        build.directory = root
        build.environment = environment
        build.errors = .intoOutput
        return build
    }

    /// Each error in the learner's files, once (the module's interface and its
    /// code are compiled by two jobs that report the same errors), in the
    /// order of file, line and column: the files are compiled in parallel, and
    /// their errors come in any order.
    public static func errors(inBuildLog log: String, root: URL) -> [CompilerError] {
        let prefix = root.standardizedFileURL.path + "/"
        var seen = Set<String>()
        let errors = log.split(separator: "\n").compactMap { line -> CompilerError? in
            let line = line.replacingOccurrences(of: prefix, with: "")
            guard line.hasPrefix(WorkbenchLayout.code), seen.insert(line).inserted,
                let match = line.firstMatch(of: #/^([^:]+):(\d+):(\d+): error: (.*?)(?: \[#[A-Za-z]+\])?$/#),
                let number = Int(match.2), let column = Int(match.3)
            else { return nil }
            return CompilerError(file: String(match.1), line: number, column: column, message: String(match.4))
        }
        return errors.sorted { ($0.file, $0.line, $0.column) < ($1.file, $1.line, $1.column) }
    }

    /// The verdict on one Swift 6 build: passed when it compiled; else how
    /// many errors the learner's files have and the first, in the compiler's
    /// words. A build that failed with none in them (the package around it,
    /// the toolchain) judges nothing. The hint is said of `code`, the learner's files.
    public static func judge(
        buildLog log: String, compiled: Bool, root: URL, code: LearnerCode? = nil
    ) -> CheckResult {
        if compiled { return bug.result(passed: true, measured: "no error in the Swift 6 language mode", code: code) }
        let errors = errors(inBuildLog: log, root: root)
        guard let first = errors.first else {
            let said = WorkbenchDiagnostics.compilerErrors(log, root: root).suffix(300)
            return unmeasured("the Swift 6 build failed outside your files" + (said.isEmpty ? "" : ": \(said)"))
        }
        let files = Set(errors.map(\.file)).count
        return bug.result(
            passed: false,
            measured: counted(errors.count, "error") + (files > 1 ? " in \(files) files" : "")
                + " in the Swift 6 language mode; the first: \(first.said)",
            code: code)
    }

    /// No verdict: the build said nothing of the learner's files (`why`), so the bug is neither fixed nor there.
    public static func unmeasured(_ why: String) -> CheckResult {
        CheckResult(
            bug: bug.name, passed: false, measured: "not measured: " + why, expected: bug.expected,
            hint: "See what it says: \(command)", isSafeguard: bug.isSafeguard, notMeasured: true)
    }
}
