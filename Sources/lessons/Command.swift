import Foundation
import LessonKit

/// One command of `lessons`, in the shape swift-argument-parser gives one: a
/// name, a one-line abstract, and its command line declared as a `FlagTable`,
/// from which come its parsing, its usage (then `about`, how it works) and
/// docs/cli.md's synopsis; `run` does the work and returns the exit status.
/// A command that checks more than each flag alone (`compare`) adds to `parse`.
///
/// `Lessons.main` does the rest the same way for every command: `--help`
/// prints the usage and exits 0, a bad command line is one line naming the
/// problem, then the usage, exit status 2, and any other error is one line,
/// exit status 1.
protocol LessonsCommand {
    associatedtype Options
    static var name: String { get }
    static var abstract: String { get }
    static var flags: FlagTable<Options> { get }
    /// What the usage says after its flags' lines.
    static var about: String { get }
    /// The options, or nil for `--help`.
    static func parse(_ arguments: [String]) throws(UsageError) -> Options?
    static func run(_ options: Options) async throws -> Int32
}

extension LessonsCommand {
    static var about: String { "" }

    static func parse(_ arguments: [String]) throws(UsageError) -> Options? {
        try flags.parse(arguments)
    }

    static var usage: String {
        flags.usage(program: "lessons \(name)") + (about.isEmpty ? "" : "\n" + about)
    }
}

enum Lessons {
    static var commands: [any LessonsCommand.Type] {
        [
            ListCommand.self, RunCommand.self, NextCommand.self, CompareCommand.self, PlayCommand.self,
            ScoreboardCommand.self,
            TimelinesCommand.self, FrameCostCommand.self, BenchCommand.self, DocsCommand.self, ExerciseCommand.self,
            CheckCommand.self, WatchCommand.self, HintCommand.self, ResetCommand.self, SolutionCommand.self,
            TaskCommand.self, SiteCommand.self, DoctorCommand.self,
        ]
    }

    static var usage: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let lines = commands.map { command in
            "  " + command.name.padding(toLength: width + 2, withPad: " ", startingAt: 0) + command.abstract
        }
        return
            (["usage: lessons [COMMAND] [flags]   (no command: list the steps)", "commands:"] + lines + [
                "Each command takes --help. Steps: swift run lessons run N --help.",
                "Exercises (fix each step's bug yourself): start with swift run lessons exercise.",
            ]).joined(separator: "\n")
    }

    /// Runs the command line (without the program's name) and returns the exit status.
    static func main(_ arguments: [String]) async -> Int32 {
        guard let name = arguments.first else { return await execute(ListCommand.self, []) }
        if ["--help", "-h", "help"].contains(name) {
            // `lessons help exercise` is `lessons exercise --help`.
            if name == "help", let topic = arguments.dropFirst().first {
                guard let command = commands.first(where: { $0.name == topic }) else {
                    printError(
                        "lessons help: unknown command '\(topic)'" + (suggestion(for: topic).map { "; \($0)" } ?? ""))
                    printError(usage)
                    return 2
                }
                say(command.usage)
                return 0
            }
            say(usage)
            return 0
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            printError("lessons: unknown command '\(name)'" + (suggestion(for: name).map { "; \($0)" } ?? ""))
            printError(usage)
            return 2
        }
        return await execute(command, Array(arguments.dropFirst()))
    }

    /// What the learner may have meant by an unknown command: a step's number
    /// (`lessons 3`), or a command spelt a letter or two off (`exercize`).
    static func suggestion(for word: String) -> String? {
        if let number = Int(word) {
            guard LessonCatalog.entry(number) != nil else { return "the steps are \(RunCommand.stepNumbers)" }
            return "to play step \(number): swift run lessons run \(number)"
        }
        return DidYouMean.closest(to: word, among: commands.map { $0.name }).map {
            "did you mean: swift run lessons \($0)?"
        }
    }

    private static func execute<Command: LessonsCommand>(_ command: Command.Type, _ arguments: [String]) async -> Int32
    {
        do {
            guard let options = try command.parse(arguments) else {
                say(command.usage)
                return 0
            }
            return try await command.run(options)
        } catch let error as UsageError {
            printError("lessons \(command.name): \(error)\n\(command.usage)")
            return 2
        } catch {
            printError("lessons \(command.name): \(error)")
            return 1
        }
    }
}

/// The step executables beside `lessons`, or nil (having said which are
/// missing) when any of `steps` is not built.
func stepProcesses(for steps: [LessonEntry], command: String) -> StepProcess? {
    let children = StepProcess.besideThisProgram()
    let missing = children.missing(steps)
    guard missing.isEmpty else {
        printError("lessons \(command): \(missing.map(\.target).joined(separator: ", ")) not built; run: swift build")
        return nil
    }
    return children
}

/// Text on standard output, each line broken between words to fit the terminal.
func say(_ text: String = "") {
    StandardStream.output.line(wrapping: text)
}

/// Text on standard output as it is: JSON, Markdown, a table already fitted.
func sayAsIs(_ text: String) {
    StandardStream.output.line(text)
}

/// A message on standard error, its characters made printable, fitted to the terminal.
func printError(_ message: String) {
    StandardStream.error.message(message)
}
