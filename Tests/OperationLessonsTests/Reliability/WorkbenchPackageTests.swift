import Foundation
import LessonChecks
import LessonKit
import Testing

/// The suites that build real workbenches, in one sandbox (`.build/workbench-sandbox`: the lessons' manifest and
/// sources linked, a workbench of its own), one test at a time. A fresh clone compiles the lessons' libraries
/// there once for the ordinary build and once for the race build, not once more per suite, and a later run
/// compiles only the workbench's own module.
@Suite(.serialized) enum WorkbenchSandboxTests {
    static let sandbox = Rig.packageRoot.appendingPathComponent(".build/workbench-sandbox")
}

extension WorkbenchSandboxTests {
    /// The workbench is a package of its own (`Workbench/`), so the learner's
    /// code, compiling or not, never stops the lessons' build and tests; only
    /// `lessons check` (and the learner's `swift run --package-path Workbench`)
    /// builds it. Played on the sandbox of `WorkbenchSandboxTests`.
    @Suite struct WorkbenchPackageTests {
        static var sandbox: URL { WorkbenchSandboxTests.sandbox }
        static var code: URL { sandbox.appendingPathComponent(WorkbenchLayout.code) }

        /// The sandbox, holding exercise 2's starting code as committed, and its build folder kept from the run before.
        static func makeSandbox() throws -> URL {
            let manager = FileManager.default
            for name in ["Package.swift", "Sources", "Tests"] {
                let link = sandbox.appendingPathComponent(name)
                try? manager.removeItem(at: link)
                try manager.createDirectory(at: sandbox, withIntermediateDirectories: true)
                try manager.createSymbolicLink(
                    at: link, withDestinationURL: Rig.packageRoot.appendingPathComponent(name))
            }
            let package = sandbox.appendingPathComponent(WorkbenchLayout.package)
            try manager.createDirectory(at: package, withIntermediateDirectories: true)
            try? manager.removeItem(at: package.appendingPathComponent("Package.swift"))
            try manager.copyItem(
                at: Rig.packageRoot.appendingPathComponent(WorkbenchLayout.package + "/Package.swift"),
                to: package.appendingPathComponent("Package.swift"))
            try? manager.removeItem(at: code)
            try manager.createDirectory(at: code.deletingLastPathComponent(), withIntermediateDirectories: true)
            try manager.copyItem(at: Rig.packageRoot.appendingPathComponent("Sources/Lesson01SyncLoad"), to: code)
            let exercise = try #require(ExerciseCatalog.exercise(2))
            try exercise.workbenchMain.write(
                to: code.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
            try? manager.removeItem(at: sandbox.appendingPathComponent(".operationlessons"))
            return sandbox
        }

        /// A run that never ends fails the test, loudly, rather than hanging it.
        static var hangGuard: Watchdog { Watchdog(limit: .seconds(300)) }

        /// A check on the sandbox: a cold build of the workbench's libraries takes minutes on a busy machine (one
        /// stopped at 300 s at load 30, its build not done).
        static func lessons(_ arguments: [String]) async throws -> Rig.ProcessResult {
            try await Rig.runProduct("lessons", arguments + ["--root", sandbox.path], timeLimit: .seconds(1500))
        }

        /// No target of the lessons' package is the workbench or reads from it:
        /// `swift build` and `swift test` never compile the learner's code.
        @Test func theLessonsPackageDoesNotBuildTheWorkbench() async throws {
            // A scratch folder of its own: the one of the `swift test` running this is locked by it.
            let scratch = Self.sandbox.appendingPathComponent("manifest").path
            var dump = ChildProcess(command: ["swift", "package", "--scratch-path", scratch, "dump-package"])
            dump.directory = Rig.packageRoot
            let result = try await dump.finished(watchdog: Self.hangGuard)
            #expect(result.exited && result.status == 0, "\(result.errors)")
            let manifest = try #require(
                try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
            let targets = try #require(manifest["targets"] as? [[String: Any]])
            let names = targets.compactMap { $0["name"] as? String }
            #expect(names.contains("lessons") && names.contains("LessonChecks"))
            #expect(!names.contains("Workbench"), "\(names)")
            #expect(!targets.contains { ($0["path"] as? String)?.hasPrefix(WorkbenchLayout.package) == true })
            #expect(
                !FileManager.default.fileExists(
                    atPath: Rig.packageRoot.appendingPathComponent("Sources/Workbench").path))
        }

        /// The workbench's folder names the lessons' package in its manifest, as a
        /// dependency: it is not taken for the lessons' package itself.
        @Test func theWorkbenchsFolderIsNotTheLessonsPackage() async throws {
            let folder = Rig.packageRoot.appendingPathComponent(WorkbenchLayout.package)
            let run = try await Rig.runProduct("lessons", ["exercise", "--root", folder.path])
            #expect(run.status == 1)
            #expect(run.standardError.contains("\(folder.path) is not the OperationLessons package folder"))
        }

        /// A syntax error in the workbench: `lessons check` names its file and
        /// line, relative to the lessons' package, and says what to do.
        @Test func aWorkbenchThatDoesNotCompileIsNamedByTheCheck() async throws {
            _ = try Self.makeSandbox()
            let file = Self.code.appendingPathComponent("AppsViewController.swift")
            let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
            let line = try #require(lines.firstIndex { $0.hasPrefix("class AppsViewController") })
            var broken = lines
            broken[line] += " {"
            try broken.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)

            let check = try await Self.lessons(["check", "5"])
            #expect(check.status == 1, "\(check.standardError)")
            #expect(check.standardOutput.contains("The workbench does not compile:"), "\(check.standardOutput)")
            #expect(check.standardOutput.contains("\(WorkbenchLayout.code)AppsViewController.swift:\(line + 1):"))
            #expect(check.standardOutput.contains("Fix it and run `swift run lessons check` again"))
        }

        /// A build whose every error is in the suite's own sources is not the
        /// learner's to fix: `lessons check` builds once more and, failing again
        /// so, says it is the suite's bug, with its first error's place. The
        /// builds are a `swift` of the test's own, first on PATH, that writes the
        /// real log of a workbench build whose plan missed a file added to TableKit.
        @Test func aBuildFailingOnlyInTheSuitesSourcesIsTheSuitesBug() async throws {
            _ = try Self.makeSandbox()
            let folder = try ScratchFolder.make("fake-swift")
            defer { ScratchFolder.remove(folder) }
            let log = WorkbenchDiagnosticsTests.staleBuildLog.replacingOccurrences(
                of: "/tmp/pkg", with: Self.sandbox.path)
            try log.write(to: folder.appendingPathComponent("build.log"), atomically: true, encoding: .utf8)
            let calls = folder.appendingPathComponent("calls")
            let swift = folder.appendingPathComponent("swift")
            try "#!/bin/sh\necho \"$*\" >> '\(calls.path)'\ncat '\(folder.path)/build.log'\nexit 1\n".write(
                to: swift, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift.path)
            let path = folder.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            let check = try await Rig.runProduct(
                "lessons", ["check", "2", "--root", Self.sandbox.path], environment: ["PATH": path])
            #expect(check.status == 1, "\(check.standardError)")
            #expect(
                try String(contentsOf: calls, encoding: .utf8)
                    == String(
                        repeating: "build --package-path \(WorkbenchLayout.package)\n", count: 2))
            let said = check.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            #expect(said.contains("The suite's own sources failed to build, none of your files: building once more…"))
            #expect(
                said.contains(
                    "The suite itself failed to build, twice, with no error in your files "
                        + "(Sources/TableKit/TableView.swift:79: cannot find 'staleProbeTwo' in scope): that is the "
                        + "suite's bug, not yours; please report it."), "\(check.standardOutput)")
            #expect(!said.contains("Fix it") && !said.contains("does not compile"), "\(check.standardOutput)")
        }

        /// `Workbench --check N --verdict FILE`, as `lessons check` runs it: the
        /// verdict is kept as JSON, one result per bug the workbench checks; and
        /// the workbench, like every program here, says when it cannot write.
        @Test func theWorkbenchKeepsItsVerdictWhenAsked() async throws {
            _ = try Self.makeSandbox()
            let check = try await Self.lessons(["check", "2"])
            // The starting code is not solved: the checks ran and said so (1), not a build failure or usage error.
            #expect(check.status == 1, "\(check.standardOutput.suffix(600))")
            #expect(check.standardOutput.contains("Exercise 2 not solved yet"))
            let workbench = Self.sandbox.appendingPathComponent(WorkbenchLayout.package + "/.build/debug/Workbench")
            let exercise = try #require(ExerciseCatalog.exercise(2))
            let folder = try ScratchFolder.make("verdict")
            defer { ScratchFolder.remove(folder) }
            let file = folder.appendingPathComponent("verdict.json")
            var child = ChildProcess(workbench, ["--check", "2", "--verdict", file.path])
            child.directory = Self.sandbox
            let run = try await child.finished(watchdog: Self.hangGuard)
            #expect(run.exited && run.status == 1, "\(run.errors)")
            let results = try JSONDecoder().decode([CheckResult].self, from: Data(contentsOf: file))
            // The data race is judged by `lessons check` itself, with a Thread Sanitizer build.
            #expect(results.map(\.bug) == exercise.bugs.map(\.name).filter { $0 != RaceCheck.bug.name })
            #expect(!results.allPassed)
            let refused = try await ChildProcess(workbench, ["--check", "2", "--verdict"]).finished(
                watchdog: Self.hangGuard)
            #expect(refused.status == 2 && refused.errors.contains("then --verdict FILE"))
            var closed = ChildProcess(command: ["sh", "-c", "\"$0\" --help >&-", workbench.path])
            closed.directory = Self.sandbox
            let help = try await closed.finished(watchdog: Self.hangGuard)
            #expect(help.status == 1)
            #expect(help.errors == "Workbench: cannot write to standard output: it is closed\n")
        }
    }
}
