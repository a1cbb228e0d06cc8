import Foundation
import HostOS
import LessonKit

/// What the compiler and a crashed or stuck workbench wrote, cut down to what
/// a learner reads: each compiler message once, and of a backtrace (dozens
/// of lines per thread) the reason and the learner's own line.
public enum WorkbenchDiagnostics {
    /// The compiler's diagnostics from a `swift build` log, without the build's
    /// progress lines, each message once (the module's interface and its code
    /// are compiled by two jobs that report the same errors), paths relative
    /// to the package.
    public static func compilerErrors(_ log: String, root: URL) -> String {
        let prefix = root.standardizedFileURL.path + "/"
        let noise = ["[", "Building for", "Planning build", "Compiling", "Write ", "Emitting"]
        var blocks: [[String]] = []
        var seen = Set<String>()
        var skipping = false
        for line in log.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if noise.contains(where: line.hasPrefix) || isJobFailure(line) { continue }
            let line = line.replacingOccurrences(of: prefix, with: "")
            // A linker's error names no line: a block of its own, never taken for more of a message before it.
            if isDiagnosticHeader(line) || isToolError(line) {
                skipping = !seen.insert(line).inserted
                if !skipping { blocks.append([line]) }
            } else if !skipping {
                if blocks.isEmpty { blocks.append([]) }
                blocks[blocks.count - 1].append(line)
            }
        }
        return blocks.map { $0.joined(separator: "\n") }.joined(separator: "\n")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The first error of a failed build when every error is in the suite's own
    /// sources ("Sources/TableKit/AppCall.swift:3:5: error: …"), none in the
    /// learner's: the suite failed to build, not their code (a build plan that
    /// misses a file added to one of the suite's modules does that).
    /// Nil when an error is theirs, or names no file of the suite (a link error).
    public static func suitesOwnError(_ log: String, root: URL) -> String? {
        let errors = compilerErrors(log, root: root).split(separator: "\n").map(String.init)
            .filter { isDiagnosticHeader($0) && $0.contains(": error: ") }
        guard let first = errors.first, errors.allSatisfy({ $0.hasPrefix(suitesSources) }) else { return nil }
        return first
    }

    /// The suite's own sources, relative to the lessons' package (the learner's are in the workbench's package).
    static let suitesSources = "Sources/"

    /// What a learner reads when the suite's own sources failed to build twice
    /// (`suitesOwnError`): whose bug it is, and where, in one sentence.
    public static func suiteFailedToBuild(firstError: String) -> String {
        // "Sources/TableKit/AppCall.swift:3:5: error: cannot find …" as "…/AppCall.swift:3: cannot find …".
        let error =
            firstError.firstMatch(of: #/^([^ ]+?:\d+):\d+: error: (.*)$/#).map { "\($0.1): \($0.2)" } ?? firstError
        return "The suite itself failed to build, twice, with no error in your files (\(error)): that is the"
            + " suite's bug, not yours; please report it."
    }

    /// "path/File.swift:12:7: error: …" (or warning, note).
    private static func isDiagnosticHeader(_ line: String) -> Bool {
        [": error: ", ": warning: ", ": note: "].contains { line.contains($0) } && line.first != " "
            && !line.hasPrefix("error:") && line.range(of: #"^[^ ]+:\d+:\d+: "#, options: .regularExpression) != nil
    }

    /// "error: emit-module command failed with exit code 1 (use -v to see invocation)", "clang: error: linker
    /// command failed…": the messages came before.
    private static func isJobFailure(_ line: String) -> Bool {
        line.contains("error: ") && line.hasSuffix("(use -v to see invocation)")
    }

    /// "/usr/bin/ld.gold: error: undefined symbol 'Workbench_main' referenced in expression".
    private static func isToolError(_ line: String) -> Bool {
        line.firstMatch(of: #/^[^ :]+: error: /#) != nil
    }

    /// Why a build of the workbench failed when its cause is no line of the
    /// learner's Swift, in a sentence that says what to do: its manifest does
    /// not load, a dependency cannot be fetched, its folder cannot be
    /// written. Nil when the compiler's errors are the story.
    public static func buildProblem(_ log: String, root: URL) -> String? {
        let manifest = WorkbenchLayout.package + "/Package.swift"
        let prefix = root.standardizedFileURL.path + "/"
        let lines = log.split(separator: "\n").map { $0.replacingOccurrences(of: prefix, with: "") }
        if lines.contains(where: { $0.contains("Invalid manifest") || $0.hasPrefix(manifest + ":") }) {
            let first = lines.first { $0.hasPrefix(manifest + ":") && $0.contains(": error: ") }
                .map { " (" + $0.replacingOccurrences(of: ": error: ", with: ": ") + ")" } ?? ""
            return "\(manifest), the workbench's manifest, does not load\(first): it is the suite's file, not your"
                + " code, and lessons reset does not touch it. Put it back: git checkout \(manifest)"
        }
        if let fetching = lines.first(where: { $0.hasPrefix("Fetching ") || $0.hasPrefix("Cloning ") }),
            lines.contains(where: { $0.hasPrefix("error: ") })
        {
            let url = fetching.split(separator: " ").dropFirst().first.map(String.init) ?? "a package"
            return "The build could not fetch \(url), a dependency added to \(manifest): the workbench needs none but"
                + " the lessons' own package, and this machine may have no network. Remove it from \(manifest), or"
                + " put the manifest back: git checkout \(manifest)"
        }
        let cannotWrite = ["Permission denied", "invalid access to", "readonly database", "permission to save"]
        if let denied = lines.first(where: { line in
            line.hasPrefix("error: ") && cannotWrite.contains { line.contains($0) }
        }) {
            let said = denied.replacing(#/^(error: )+/#, with: "")
            return "The build cannot write in \(WorkbenchLayout.package)/ (\(said)): a build"
                + " writes \(WorkbenchLayout.package)/.build. Make it writable (chmod -R u+w"
                + " \(WorkbenchLayout.package)) and check again."
        }
        return nil
    }

    /// What a learner reads when their shell asks for the Swift 6 mode
    /// (`WORKBENCH_SWIFT_MODE=6`): a check builds in the mode the exercises are
    /// checked in, whatever it says; nil when the shell asks for nothing else.
    public static func languageModeNote(_ environment: [String: String]) -> String? {
        guard let value = environment[WorkbenchLayout.swiftModeVariable], value == "6" else { return nil }
        return "Note: \(WorkbenchLayout.swiftModeVariable)=\(value) is set in your shell. The check builds your code in"
            + " the Swift 5 language mode the exercises are checked in, whatever it says (exercise"
            + " \(LessonCatalog.phrase(ExerciseCatalog.all.filter(\.checksSwift6).map(\.number))) also compiles it"
            + " in the Swift 6 mode, on its own); \(WorkbenchLayout.run) builds it in the mode it names. To build"
            + " as the check does: unset \(WorkbenchLayout.swiftModeVariable)"
    }

    /// "Fatal error: Index out of range, in Workbench/Sources/Workbench/AppsViewController.swift:42:9
    /// (AppsViewController.tableView(_:cellForRowAt:))", from what a crashed Swift program wrote.
    public static func crashSummary(_ errors: String) -> String {
        let lines = errors.split(separator: "\n").map(String.init)
        // The runtime's own words first: a fatal error says why, the backtracer only which signal.
        let why =
            lines.first { $0.contains("Fatal error:") }.map { String($0[$0.range(of: "Fatal error:")!.lowerBound...]) }
            ?? lines.first { $0.contains("Program crashed:") }.map {
                $0.replacingOccurrences(of: "*** Program crashed: ", with: "").replacingOccurrences(
                    of: " ***", with: "")
            }
        return [why, crashPlace(lines).map { "in " + $0 }].compactMap { $0 }.joined(separator: ", ")
    }

    /// The crashed thread's first frame in the learner's code, else in any of the package's sources.
    static func crashPlace(_ lines: [String]) -> String? {
        ([learnersCode] + stepsCode).lazy.compactMap { frame(in: lines, under: $0, threads: .crashed) }.first
    }

    /// The crashed thread's top frame in the package's code when it is the
    /// suite's own (the harness, its frameworks), not the learner's or a
    /// step's: where it crashed, never to be shown as the learner's line.
    static func harnessPlace(_ lines: [String]) -> String? {
        let folders = [learnersCode] + stepsCode + ["Sources/"]
        guard let top = frame(in: lines, under: folders, threads: .crashed), top.folder == "Sources/" else {
            return nil
        }
        return top.place
    }

    /// The steps' and exercises' own code, and the controllers ported from
    /// tutorials (`Tests/Fixtures`), which the suite's tests play as a learner's.
    static let stepsCode = ["Sources/Lesson0", "Sources/Lesson1", "Sources/Exercise", "Tests/Fixtures/"]

    /// Where a stuck workbench was, from the backtrace of every thread the
    /// Swift runtime wrote when asked (SIGABRT): the learner's own code first.
    /// The main queue's work need not be on the thread that got the signal
    /// (an async `main` runs it on a Dispatch thread), so every thread is read.
    public static func stuckPlace(_ errors: String) -> String? {
        let lines = errors.split(separator: "\n").map(String.init)
        return frame(in: lines, under: learnersCode, threads: .all)
            ?? frame(in: lines, under: "Sources/", threads: .all)
    }

    /// Where the app's own threads were when a run the story clock stopped asked
    /// for its backtrace (`StuckRun`): the first frame of the learner's code, or
    /// of a step's, in a thread other than the one that asked, whose frames are
    /// only the run's ending.
    public static func waitingPlace(_ errors: String) -> String? {
        let lines = errors.split(separator: "\n").map(String.init)
        return ([learnersCode] + stepsCode).lazy.compactMap { frame(in: lines, under: $0, threads: .others) }.first
    }

    public static let learnersCode = WorkbenchLayout.code

    /// Which threads of a backtrace are read.
    private enum Threads { case all, crashed, others }

    /// The first frame in `folder` ("path:line:col (function)"), in `threads`.
    private static func frame(in lines: [String], under folder: String, threads: Threads) -> String? {
        frame(in: lines, under: [folder], threads: threads)?.place
    }

    /// The first frame in any of `folders`, and the first of them its path
    /// has (a step's folder is listed before "Sources/", which its path has too).
    private static func frame(in lines: [String], under folders: [String], threads: Threads) -> (
        place: String, folder: String
    )? {
        var inThread = threads == .all
        for line in lines {
            if threads != .all, line.hasPrefix("Thread ") {
                inThread = line.hasSuffix(" crashed:") == (threads == .crashed)
                continue
            }
            guard inThread,
                let found = folders.lazy.compactMap({ folder in line.range(of: folder).map { (folder, $0) } }).first
            else { continue }
            // "  3 [ra] 0x000055aa564941b5 crash(_:) + 52 in Workbench at /…/Workbench/Sources/Workbench/…"
            let function = line.firstMatch(of: #/0x[0-9a-f]+ (.+?) \+ \d+ in /#).map { " (\($0.1))" } ?? ""
            return (String(line[found.1.lowerBound...]) + function, found.0)
        }
        return nil
    }

    public static func signalName(_ signal: Int32) -> String {
        HostSignals.crashName(of: signal).map { ", \($0)" } ?? ""
    }
}
