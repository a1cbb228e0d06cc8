import Foundation
import LessonChecks
import LessonKit
import Testing

@testable import Exercise11Start
@testable import Lesson11SwiftConcurrency

/// Exercise 11, proven: its starting code (step 11's loader as a class) and
/// step 11's code measure the same in every scenario, so every bug of the
/// table is one to keep, and the compiler in the Swift 6 language mode is what
/// tells them apart: it refuses the start, quoting its first error at its file
/// and line, and compiles step 11.
@Suite struct Exercise11Tests {
    static let exercise = ExerciseCatalog.exercise(11)!

    /// The story's measures cannot tell the class from the actor. The class
    /// is shared by tasks that may run at once, the race the compiler
    /// refuses, so under Thread Sanitizer this run in-process is left out.
    @Test(.racyStepInProcess) func exercise11sScenariosCannotTellItsStartFromStep11() async {
        let start = await ExerciseProof.imageList(11, Exercise11Start.AppsViewController.self)
        let step = await ExerciseProof.imageList(11, Lesson11SwiftConcurrency.AppsViewController.self)
        ExerciseProof.expectSolved(start)
        ExerciseProof.expectSolved(step)
        #expect(start.allSatisfy { $0.isSafeguard })
        // Every bug of the table but the two `lessons check` judges with builds of its own.
        let built = [Swift6Check.bug.name, RaceCheck.bug.name]
        #expect(start.map(\.bug) == Self.exercise.bugs.map(\.name).filter { !built.contains($0) })
        // The task, the check and the exercise list count the same one bug.
        #expect(start.fixedCount(of: Self.exercise.bugs) == "0 of 1 bug fixed")
        #expect(Self.exercise.bugs.filter { !$0.isSafeguard }.map(\.name) == [Swift6Check.bug.name])
    }

    /// The compiler's words, once each, in the learner's files only, in file and line order.
    @Test func theVerdictReadsTheLearnersErrorsFromTheLog() {
        let root = URL(fileURLWithPath: "/home/learner/lessons")
        let code = "/home/learner/lessons/" + WorkbenchLayout.code
        let log = """
            [3/9] Compiling Workbench IconLoader.swift
            \(code)IconLoader.swift:65:26: error: capture of 'self' with non-Sendable type 'IconLoader' in a \
            '@Sendable' closure [#SendableClosureCaptures]
               |                          `- error: capture of 'self' with non-Sendable type 'IconLoader'
            \(code)AppsViewController.swift:86:9: error: passing closure as a 'sending' parameter risks causing \
            data races [#SendingClosureRisksDataRace]
            \(code)IconLoader.swift:65:26: error: capture of 'self' with non-Sendable type 'IconLoader' in a \
            '@Sendable' closure [#SendableClosureCaptures]
            \(code)IconLoader.swift:12:3: warning: no 'async' operations occur within 'await' expression
            /home/learner/lessons/Sources/TableKit/TableView.swift:4:1: error: a library's own error
            """
        let errors = Swift6Check.errors(inBuildLog: log, root: root)
        #expect(
            errors.map(\.said) == [
                WorkbenchLayout.code
                    + "AppsViewController.swift:86:9: passing closure as a 'sending' parameter risks causing data races",
                WorkbenchLayout.code
                    + "IconLoader.swift:65:26: capture of 'self' with non-Sendable type 'IconLoader' in a '@Sendable' "
                    + "closure",
            ])
        let verdict = Swift6Check.judge(buildLog: log, compiled: false, root: root)
        #expect(!verdict.passed && verdict.wasMeasured)
        #expect(verdict.measured == "2 errors in 2 files in the Swift 6 language mode; the first: \(errors[0].said)")
        // A build that failed outside the learner's files judges nothing.
        let elsewhere = Swift6Check.judge(buildLog: "error: no such module 'WebImage'", compiled: false, root: root)
        #expect(!elsewhere.passed && !elsewhere.wasMeasured)
    }

    // MARK: - The compiler's verdict, compiled

    /// A workbench's code folder of its own, `.build/exercise11-sandbox`,
    /// compiled against the libraries this test bundle was built with, as
    /// `lessons check 11` compiles the workbench's against its ordinary build's.
    static let sandbox = Rig.packageRoot.appendingPathComponent(".build/exercise11-sandbox")
    static var code: URL { sandbox.appendingPathComponent(WorkbenchLayout.code) }

    /// The workbench's code: `folder`'s files (its `main.swift` and variants
    /// aside, as `lessons exercise` installs them), each changed by `edit`, and
    /// exercise 11's `main.swift`.
    static func install(_ folder: String, _ names: [String], edit: (String, String) -> String = { $1 }) throws {
        let manager = FileManager.default
        try? manager.removeItem(at: code)
        try manager.createDirectory(at: code, withIntermediateDirectories: true)
        for name in names {
            let text = try String(
                contentsOf: Rig.packageRoot.appendingPathComponent(folder + "/" + name), encoding: .utf8)
            try edit(name, text).write(to: code.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        try exercise.workbenchMain.write(
            to: code.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
    }

    /// What `lessons check 11` judges of the workbench's code: its compile in the Swift 6 mode.
    static func verdict() async throws -> CheckResult {
        let compile = Swift6Check.compile(root: sandbox, products: Rig.productsDirectory)
        let compiled = try await compile.finished(watchdog: Watchdog(limit: .seconds(300)))
        #expect(compiled.stoppedAfter == nil, "the Swift 6 compile of the sandbox did not end")
        return Swift6Check.judge(
            buildLog: compiled.output, compiled: compiled.exited && compiled.status == 0, root: sandbox,
            code: LearnerCode.read(code))
    }

    /// "Workbench/Sources/Workbench/File.swift:12": the line of `file` in the sandbox's workbench that has `needle`.
    static func line(of needle: String, in file: String) throws -> String {
        let lines = try String(contentsOf: code.appendingPathComponent(file), encoding: .utf8)
            .components(separatedBy: "\n")
        let index = try #require(lines.firstIndex { $0.contains(needle) }, "no \(needle) in \(file)")
        return "\(WorkbenchLayout.code)\(file):\(index + 1)"
    }

    /// A failed verdict that counts `errors` and quotes the first at `line`
    /// (any column: the compiler's, which points inside the expression) in `words`.
    static func expect(
        _ verdict: CheckResult, _ errors: String, firstAt line: String, _ words: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let head = "\(errors) in the Swift 6 language mode; the first: \(line):"
        let tail = ": " + words
        let column = verdict.measured.hasPrefix(head) && verdict.measured.hasSuffix(tail)
            ? Int(verdict.measured.dropFirst(head.count).dropLast(tail.count)) : nil
        #expect(!verdict.passed && column != nil, "\(verdict.measured)", sourceLocation: sourceLocation)
    }

    /// Step 11's controller with the cell's view handed to the main-actor task as it is.
    static func unboundView(_ name: String, _ text: String) -> String {
        guard name == "AppsViewController.swift" else { return text }
        return text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains("MainActorBound((view:") && !$0.contains("shown.value") }
            .joined(separator: "\n")
            .replacingOccurrences(of: "{ view.image = image }", with: "{ cell.imageView.image = image }")
    }

    static let appFiles = ["AppInfo.swift", "AppsViewController.swift"]
    static let step11 = "Sources/Lesson11SwiftConcurrency"
    static let step11Files = appFiles + ["IconLoader.swift"]

    /// One sandbox, so the compiles take turns: the start, step 11, three
    /// mistakes made in step 11's code, and step 10's app.
    @Test(.timeLimit(.minutes(10))) func exercise11IsSolvedByStep11AndNotByItsStart() async throws {
        try Self.install(Self.exercise.startFolder, Self.step11Files)
        let start = try await Self.verdict()
        #expect(start.bug == Swift6Check.bug.name && !start.isSafeguard)
        Self.expect(
            start, "5 errors in 2 files",
            firstAt: try Self.line(of: "await loader.image(for:", in: "AppsViewController.swift"),
            "sending 'loader' risks causing data races")
        // The hint names the learner's own class.
        #expect(start.hint.hasSuffix("Look at `class IconLoader` in IconLoader.swift."))

        try Self.install(Self.step11, Self.step11Files)
        let solved = try await Self.verdict()
        #expect(solved.passed && solved.measured == "no error in the Swift 6 language mode", "\(solved.measured)")

        // The cell's view handed to the main-actor task as it is, without `MainActorBound`: Swift 5 says nothing.
        try Self.install(Self.step11, Self.step11Files, edit: Self.unboundView)
        let unbound = try Self.line(of: "load.isDone = true", in: "AppsViewController.swift")
        Self.expect(try await Self.verdict(), "2 errors", firstAt: unbound, "sending 'load' risks causing data races")

        // The same, and a global counter in a folder of its own: its type error hides no region error elsewhere
        // (a build that compiles the two files together reports the counter's error alone).
        let helpers = Self.code.appendingPathComponent("Helpers")
        try FileManager.default.createDirectory(at: helpers, withIntermediateDirectories: true)
        try "var loadCount = 0\n\nfunc countLoad() { loadCount += 1 }\n".write(
            to: helpers.appendingPathComponent("LoadCount.swift"), atomically: true, encoding: .utf8)
        Self.expect(
            try await Self.verdict(), "3 errors in 2 files", firstAt: unbound, "sending 'load' risks causing data races")

        // The actor's cache written from a detached task (an error in every language mode: actors are always checked).
        try Self.install(Self.step11, Self.step11Files) { name, text in
            guard name == "IconLoader.swift" else { return text }
            return text.replacingOccurrences(
                of: "try? disk.store(data, forKey: url)\n            memory[url] = image",
                with: "try? disk.store(data, forKey: url)\n            Task.detached { self.memory[url] = image }")
        }
        Self.expect(
            try await Self.verdict(), "1 error", firstAt: try Self.line(of: "self.memory[url]", in: "IconLoader.swift"),
            "actor-isolated property 'memory' can not be mutated from a nonisolated context")

        // Step 10's app compiles in the Swift 6 mode as it is: its library's locks are promised safe, and taken on trust.
        try Self.install("Sources/Lesson10WebImage", Self.appFiles)
        let step10 = try await Self.verdict()
        #expect(step10.passed, "\(step10.measured)")
    }
}
