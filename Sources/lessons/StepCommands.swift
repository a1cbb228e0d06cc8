import Foundation
import HostOS
import LessonKit

/// `lessons` or `lessons list`: every step, what it fixes, how to run and read it.
enum ListCommand: LessonsCommand {
    static let name = "list"
    static let abstract = "list the steps (what `lessons` alone does)"
    static var flags: FlagTable<Void> { FlagTable(()) }
    static let about = "Every step: its number, title, the bug it fixes, how to run it, its lesson text."

    static func run(_: Void) -> Int32 {
        say("OperationLessons: Operation and OperationQueue, one bug at a time.\n")
        for entry in LessonCatalog.all {
            say("\(entry.id)  \(entry.title)")
            say("    fixes: \(entry.fixes)")
            if let comparison = LessonComparison.of(entry.number) {
                say(
                    "    run:   swift run lessons compare \(entry.number)   (beside step \(comparison.before.number);"
                        + " alone: lessons run \(entry.number))")
            } else {
                say("    run:   swift run lessons run \(entry.number)   (or: swift run \(entry.target))")
            }
            say("    read:  \(entry.text)")
        }
        say("\nEvery step takes --help, --speed X, --json, --timeline FILE.svg. Tests: swift test")
        say("Compare them: swift run lessons scoreboard")
        say("Fix each bug yourself: swift run lessons exercise")
        return 0
    }
}

/// `lessons run N [flags]`: the step's own executable, in this process's place.
enum RunCommand: LessonsCommand {
    static let name = "run"
    static let abstract = "run step N with the lesson flags: lessons run N [flags] (its flags: lessons run N --help)"
    struct Options {
        /// Set by the table's required `N`.
        var entry: LessonEntry?
        var compare = false
        /// The step's flags, handed on as they are.
        var flags: [String] = []
    }

    static var flags: FlagTable<Options> {
        FlagTable(
            Options(),
            words: [
                .required(
                    "N", help: "the step (\(stepNumbers)); its flags: lessons run N --help",
                    missing: "run needs a step number (\(stepNumbers))"
                ) { options, word throws(UsageError) in
                    guard let number = Int(word) else {
                        throw UsageError("'\(word)' is not a step number; the steps are \(stepNumbers)")
                    }
                    guard let entry = LessonCatalog.entry(number) else {
                        throw UsageError("there is no step \(number); the steps are \(stepNumbers)")
                    }
                    options.entry = entry
                }
            ],
            flags: [
                .switch(
                    "--compare", \.compare,
                    help: "play step N beside the step before it: lessons compare N (steps "
                        + LessonComparison.steps.map(String.init).joined(separator: ", ") + ")")
            ],
            handsOn: ("flags", \.flags))
    }

    static let about = """
        The step's own executable (built beside lessons) takes this process's place, so it owns the terminal \
        (colours, Ctrl-C) exactly as when run directly.
        """

    /// "1 to 10", or the numbers one by one were there a gap.
    static var stepNumbers: String {
        let numbers = LessonCatalog.all.map(\.number)
        guard let first = numbers.first, let last = numbers.last, numbers == Array(first...last) else {
            return numbers.map(String.init).joined(separator: ", ")
        }
        return "\(first) to \(last)"
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> Options? {
        guard let options = try flags.parse(arguments) else { return nil }
        // `--compare` makes it `lessons compare N`: its command line is checked now.
        if options.compare { _ = try CompareCommand.parse(compareArguments(options)) }
        return options
    }

    static func run(_ options: Options) async throws -> Int32 {
        guard let entry = options.entry else { throw UsageError("run needs a step number (\(stepNumbers))") }
        if options.compare {
            guard let compare = try CompareCommand.parse(compareArguments(options)) else {
                say(CompareCommand.usage)
                return 0
            }
            return try await CompareCommand.run(compare)
        }
        return try play(entry, flags: options.flags, workspace: try? Workspace.find(root: nil))
    }

    private static func compareArguments(_ options: Options) -> [String] {
        options.entry.map { [String($0.number)] + options.flags } ?? options.flags
    }

    /// Plays the step in this process's place, having noted it in the
    /// learner's progress (`lessons next` plays the one after); a package
    /// folder that cannot be found or written only costs that note.
    static func play(_ entry: LessonEntry, flags: [String], workspace: Workspace?) throws -> Int32 {
        let executable = StepProcess.besideThisProgram().executable(for: entry).path
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ChildProcessError("\(executable) is not built; run: swift build")
        }
        if !flags.contains(where: { ["--help", "-h"].contains($0) }) { try? workspace?.played(step: entry.number) }
        // The step handles its own signals.
        ChildProcess.handOverSignals()
        let error = HostProcess.replace(with: executable, arguments: [executable] + flags)
        throw ChildProcessError("cannot start \(executable): \(error)")
    }
}
