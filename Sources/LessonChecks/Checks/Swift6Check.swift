import Foundation
import LessonKit

/// Exercise 11's bug, which no scenario can show: code the story plays one
/// task at a time measures as race-free, whatever it would do on real
/// threads. The Swift 6 compiler judges it instead: the learner's files are
/// compiled again in the Swift 6 language mode (complete concurrency checking),
/// and their errors are the verdict, in the compiler's words.
public enum Swift6Check {
    /// The build a learner types to see the errors (`Workbench/Package.swift` reads the setting). It may show
    /// fewer than `compile`: it compiles files in batches, and a type error stops its batch's region checks.
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
                role: "the type that holds the memory cache and the downloads in flight",
                presumes: CodePlace.Presumption(
                    ["cache", "Cache"],
                    otherwise: "where the compiler's first error points, in the Swift 6 language mode")),
            api:
                "An `actor` is a class whose state only its own methods touch, one call at a time: from outside, "
                + "each call is `await`ed, even a call to a method that is not `async`. Nothing else changes: the "
                + "loader's tasks, continuations and cancellation handler stay as they are.",
            code: [
                .line("actor IconLoader {", in: "IconLoader.swift"),
                .line("Task { await self.leave(url, caller) }", in: "IconLoader.swift"),
                .line("Task { await loader.setPaused(paused) }", in: "AppsViewController.swift"),
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

    /// The learner's files compiled in the Swift 6 mode against the lessons'
    /// libraries as `products` (a `debug` folder: the workbench's ordinary
    /// build, or the lessons' own) holds them, its standard error in its output
    /// (`judge` reads it). Only as far as the compiler's checks go (`-emit-sil`:
    /// the region checks run on SIL, which `-typecheck` never makes), with no
    /// manifest, build plan or link, and the ordinary build left as it is. One
    /// compile per file (a build batches them): a file with a type error stops
    /// the region checks of every file compiled with it.
    public static func compile(root: URL, products: URL) -> ChildProcess {
        // The paths the build gave the compiler: a module cache named two ways holds each module twice, and fails.
        let products = products.resolvingSymlinksInPath()
        let files = swiftFiles(in: root.appendingPathComponent(WorkbenchLayout.code))
        let clangModules = ((try? FileManager.default.contentsOfDirectory(atPath: products.path)) ?? [])
            .filter { $0.hasSuffix(".build") }.sorted()
            .map { products.appendingPathComponent($0).appendingPathComponent("module.modulemap").path }
            .filter { FileManager.default.fileExists(atPath: $0) }
        // Without `-continue-building-after-errors` the files not yet compiled when one fails are left out.
        var compile = ChildProcess(
            command: [
                "swiftc", "-emit-sil", "-continue-building-after-errors", "-swift-version", "6", "-module-name",
                "Workbench", "-package-name", "workbench", "-Onone", "-DSWIFT_PACKAGE", "-DDEBUG", "-j2",
                "-I", products.appendingPathComponent("Modules").path,
                "-module-cache-path", products.appendingPathComponent("ModuleCache").path,
            ] + clangModules.flatMap { ["-Xcc", "-fmodule-map-file=" + $0] } + files.map(\.path))
        compile.directory = root
        compile.errors = .intoOutput
        return compile
    }

    /// The Swift files of the learner's module, as SwiftPM finds them: in `folder` and the folders under it,
    /// hidden ones aside.
    static func swiftFiles(in folder: URL) -> [URL] {
        let found =
            FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil, options: .skipsHiddenFiles)?
            .allObjects ?? []
        return found.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
            .sorted { $0.path < $1.path }
    }

    /// Each error in the learner's files, once (the compiles of two files
    /// can report the same error, and a build compiles the module's interface
    /// apart), in the order of file, line and column: the files are compiled
    /// in parallel, and their errors come in any order.
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

    /// The verdict on one Swift 6 compile: passed when it compiled; else how
    /// many errors the learner's files have and the first, in the compiler's
    /// words. A compile that failed with none in them (a missing module,
    /// the toolchain) judges nothing. The hint is said of `code`, the learner's files.
    public static func judge(
        buildLog log: String, compiled: Bool, root: URL, code: LearnerCode? = nil
    ) -> CheckResult {
        if compiled { return bug.result(passed: true, measured: "no error in the Swift 6 language mode", code: code) }
        let errors = errors(inBuildLog: log, root: root)
        guard let first = errors.first else {
            let said = WorkbenchDiagnostics.compilerErrors(log, root: root).suffix(300)
            return unmeasured("the Swift 6 compile failed outside your files" + (said.isEmpty ? "" : ": \(said)"))
        }
        let files = Set(errors.map(\.file)).count
        return bug.result(
            passed: false,
            measured: counted(errors.count, "error") + (files > 1 ? " in \(files) files" : "")
                + " in the Swift 6 language mode; the first: \(first.said)",
            code: code)
    }

    /// The compiler's verdict read with the race run's: code that compiles only because it promised the
    /// compiler its safety (`@unchecked Sendable`), while Thread Sanitizer saw its state touched by two threads at
    /// once, is not fixed: the promise is broken, at the learner's line. Any other pair of verdicts stands.
    public static func kept(_ compiled: CheckResult, by race: CheckResult, code: LearnerCode?) -> CheckResult {
        guard compiled.passed, !race.passed, race.wasMeasured else { return compiled }
        // The promise on the type whose memory raced, else in a file the race was seen in (a helper box may
        // promise too), else the first.
        let raced = [race.measured, race.diagnosis ?? ""].joined()
        let owner = raced.firstMatch(of: /of an? `(\w+)`/).map { String($0.1) }
        let promise = code.flatMap { code in
            let files = code.files.keys.sorted().filter { raced.contains($0) }
            return owner.flatMap { CrashDiagnosis.firstLine(containing: uncheckedSendable, declaring: $0, in: code) }
                ?? CrashDiagnosis.firstLine(
                    containing: uncheckedSendable, in: LearnerCode(files: code.files.filter { files.contains($0.key) }))
                ?? CrashDiagnosis.firstLine(containing: uncheckedSendable, in: code)
        }
        return CheckResult(
            bug: bug.name, passed: false,
            measured: "no error in the Swift 6 language mode"
                + (promise.map { ", by `\(uncheckedSendable)` (\($0)), a promise the race run found broken" }
                    ?? ", but the race run found a data race")
                + ": " + race.measured,
            expected: bug.expected,
            hint: "`\(uncheckedSendable)` tells the compiler to take your word that nothing is touched by two "
                + "threads at once; the race run's row shows what was. Keep the promise (an `actor`, or one lock "
                + "around every property), and let the compiler check it.",
            isSafeguard: bug.isSafeguard, diagnosis: race.diagnosis)
    }

    static let uncheckedSendable = "@unchecked Sendable"

    /// No verdict: the compiler said nothing of the learner's files (`why`), so the bug is neither fixed nor there.
    public static func unmeasured(_ why: String) -> CheckResult {
        CheckResult(
            bug: bug.name, passed: false, measured: "not measured: " + why, expected: bug.expected,
            hint: "See what it says: \(command)", isSafeguard: bug.isSafeguard, notMeasured: true)
    }
}
