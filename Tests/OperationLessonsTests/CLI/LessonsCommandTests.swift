import Foundation
import LessonChecks
@testable import LessonKit
import TableKit
import Synchronization
import TerminalKit
import Testing

/// `lessons` as a learner's shell meets it: every command answers `--help`,
/// a slip gets a suggestion, every output fits 80 columns, and no colour
/// goes where none is wanted.
@Suite struct LessonsCommandTests {
    /// The commands `lessons --help` lists.
    static func commandNames() async throws -> [String] {
        let help = try await SharedRuns.shared.product("lessons", ["--help"])
        #expect(help.status == 0)
        let listed = help.standardOutput.split(separator: "\n").drop { $0 != "commands:" }.dropFirst()
            .prefix { $0.hasPrefix("  ") }
        // A command's line starts with two spaces and its name; a wrapped abstract's with more.
        return listed.filter { !$0.hasPrefix("   ") }.compactMap { $0.split(separator: " ").first.map(String.init) }
    }

    @Test func everyCommandAnswersHelp() async throws {
        let names = try await Self.commandNames()
        #expect(names.count >= 13 && names.contains("watch") && names.contains("next"))
        for name in names {
            for arguments in [[name, "--help"], [name, "-h"], ["help", name]] {
                let run = try await SharedRuns.shared.product("lessons", arguments)
                #expect(run.status == 0, "\(arguments): \(run.standardError)")
                #expect(run.standardOutput.hasPrefix("usage: lessons \(name)"), "\(arguments)")
                #expect(run.standardError.isEmpty, "\(arguments)")
            }
        }
    }

    /// The course's steps as the slips name them, and a number past the last, which names none.
    static let steps = "1 to \(LessonCatalog.all.count)"
    static let noStep = LessonCatalog.all.count + 1

    static let slips: [([String], String)] = [
        (["3"], "lessons: unknown command '3'; to play step 3: swift run lessons run 3"),
        (["\(noStep)"], "lessons: unknown command '\(noStep)'; the steps are \(steps)"),
        (["exercize"], "lessons: unknown command 'exercize'; did you mean: swift run lessons exercise?"),
        (["run", "\(noStep)"], "lessons run: there is no step \(noStep); the steps are \(steps)"),
        (["run", "three"], "lessons run: 'three' is not a step number; the steps are \(steps)"),
        (["run"], "lessons run: run needs a step number (\(steps))"),
    ]

    @Test(arguments: slips)
    func aSlipIsAnsweredWithWhatWasMeant(arguments: [String], message: String) async throws {
        let run = try await SharedRuns.shared.product("lessons", arguments)
        #expect(run.status == 2)
        #expect(run.standardError.split(separator: "\n").first.map(String.init) == message)
        #expect(run.standardError.contains("usage: lessons"))
    }

    /// With `COLUMNS=80` off a terminal, as on an 80-column one: no line of any
    /// command's output is wider, help, lists, hints at every level, diffs and errors alike.
    @Test func everyOutputFitsEightyColumns() async throws {
        let root = try ExerciseCommandTests.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        var commands: [[String]] = [[], ["--help"], ["exercise"], ["3"], ["run", "11"], ["exercise", "12"]]
        // The steps' own help, and a step's report (its sentences, the lesson, what is still broken).
        commands += LessonCatalog.all.map { ["run", String($0.number), "--help"] }
        commands += [["run", "8", "--part", "start,limit", "--speed", "10"], ["run", "7", "--speed", "10"]]
        commands += try await Self.commandNames().map { [$0, "--help"] }
        for exercise in ExerciseCatalog.all {
            commands +=
                [["hint", "\(exercise.number)"]] + Array(repeating: ["hint", "\(exercise.number)", "--more"], count: 2)
            commands.append(["solution", "\(exercise.number)", "--force"])
        }
        for arguments in commands {
            let needsRoot = ["exercise", "hint", "solution"].contains(arguments.first) && !arguments.contains("--help")
            // A command of the sandbox's runs against the sandbox; the others, the same for every test, are shared.
            let run =
                needsRoot
                ? try await Rig.runProduct("lessons", arguments + ["--root", root.path], environment: ["COLUMNS": "80"])
                : try await SharedRuns.shared.product("lessons", arguments, environment: ["COLUMNS": "80"])
            #expect(!run.standardOutput.isEmpty || !run.standardError.isEmpty, "\(arguments)")
            #expect(TerminalWidthTests.overflowing(run.standardOutput).isEmpty, "\(arguments): stdout")
            #expect(TerminalWidthTests.overflowing(run.standardError).isEmpty, "\(arguments): stderr")
        }
    }

    /// The live screen on a terminal: with `NO_COLOR`, drawn in place but in
    /// no colour; on a terminal that takes no cursor moves, plain text.
    @Test func noColorAndADumbTerminalGetNoColour() async throws {
        let arguments = ["--scenario", "offline", "--offline", "--speed", "50"]
        let noColor = try await PseudoTerminal.run(
            "Lesson02AsyncPlaceholder", arguments: arguments, environment: ["NO_COLOR": "1"])
        #expect(noColor.status == 0)
        #expect(noColor.output.contains("\u{1B}[H"), "still a live screen")
        #expect(!noColor.output.contains("\u{1B}[38;2;") && !noColor.output.contains("\u{1B}[48;2;"))
        let dumb = try await PseudoTerminal.run(
            "Lesson02AsyncPlaceholder", arguments: arguments, environment: ["TERM": "dumb"])
        #expect(dumb.status == 0)
        #expect(!dumb.output.contains("\u{1B}"), "no escape sequence at all")
        #expect(dumb.output.contains("after "), "the plain screen, after each script step")

        var options = LessonOptions()
        options.plain = false
        let terminal = TerminalOutput(isTerminal: true, terminalColumns: 80, environment: ["NO_COLOR": "1"])
        #expect(LessonConsole(options: options, output: terminal).mark(false) == "✗")
        let coloured = TerminalOutput(isTerminal: true, terminalColumns: 80, environment: ["TERM": "xterm"])
        #expect(LessonConsole(options: options, output: coloured).mark(false).contains("\u{1B}[31m"))
    }

    /// `lessons timelines` with no folder named writes to the package's
    /// git-ignored state folder, never over the committed pictures, and on a
    /// terminal its progress counts the seconds from the first one on.
    @Test(.racyStepAsChild) func timelinesGoWhereTheyAreToldAndShowTheyAreAlive() async throws {
        let root = try ExerciseCommandTests.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await PseudoTerminal.run(
            "lessons", arguments: ["timelines"], environment: ["COLUMNS": "80"], directory: root)
        #expect(run.status == 0, "\(run.output.suffix(500))")
        let count = LessonCatalog.all.count
        #expect(run.output.contains("Writing \(count) timeline pictures to .operationlessons/timelines/"))
        let pictures = try FileManager.default.contentsOfDirectory(
            atPath: root.appendingPathComponent(".operationlessons/timelines").path)
        #expect(pictures.count == count && pictures.contains("08-dependencies.svg"))
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("docs").path))
        // The line of each job, counted from 0 s. No job here takes a second for sure (step 8's story, on the
        // story clock, ends in under one idle): `ProgressLineTests` counts one.
        #expect(run.output.contains("[8/\(count)] step 08 dependencies … 0 s"))
    }
}

/// The progress line `lessons timelines`, `scoreboard` and `frame-cost` show on a terminal counts the seconds the
/// job has taken, on the line it rewrites, so a job that plays for a minute still shows it is alive.
@Suite struct ProgressLineTests {
    @Test func itCountsTheSecondsOfItsJobOnTheLineItRewrites() {
        let written = Mutex<[String]>([])
        let clock = Mutex(ContinuousClock.now)
        let terminal = TerminalOutput(isTerminal: true, terminalColumns: 80, environment: [:])
        let progress = ProgressLine(
            total: 11, terminal: terminal, write: { text in written.withLock { $0.append(text) } },
            now: { clock.withLock { $0 } })
        progress.started("step 08 dependencies")
        clock.withLock { $0 += .milliseconds(1200) }
        progress.tick()
        progress.end()
        // The ticker's own tick may come between them too, when this test waits a second for a processor.
        let lines = written.withLock { $0 }
        #expect(lines.first == "\r\u{1B}[K[1/11] step 08 dependencies … 0 s")
        #expect(lines.dropLast().last == "\r\u{1B}[K[1/11] step 08 dependencies … 1 s")
        #expect(lines.last == "\r\u{1B}[K")
    }
}

/// docs/cli.md lists every command of `lessons`, and each flag a row gives is one its usage takes, and back.
@Suite struct LessonsDocsTests {
    /// Each documented command's flags, from the code cell of its rows ("`swift run lessons hint [N] [--more]`").
    static func documented() throws -> [String: Set<String>] {
        let text = try String(contentsOf: CLIDocs.url, encoding: .utf8)
        var commands: [String: Set<String>] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `swift run ") {
            // The first column's code: the command, and its other spellings ("or `lessons run N --compare`").
            let column = line.dropFirst(2).components(separatedBy: " | ")[0]
            let spans = column.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { $0.element.split(separator: " ").map(String.init) }
            guard let first = spans.first, let index = first.firstIndex(of: "lessons") else { continue }
            let name = first.dropFirst(index + 1).first ?? "list"
            guard !name.hasPrefix("-") else { continue }
            let flags = spans.joined().flatMap { $0.split(whereSeparator: { "[]|\\".contains($0) }) }.filter {
                $0.hasPrefix("--")
            }
            commands[name, default: []].formUnion(flags.map(String.init))
        }
        return commands
    }

    @Test func everyCommandAndItsFlagsAreDocumented() async throws {
        let documented = try Self.documented()
        let names = try await LessonsCommandTests.commandNames()
        #expect(Set(documented.keys) == Set(names))
        for name in names {
            let usage = try await SharedRuns.shared.product("lessons", [name, "--help"]).standardOutput
            // The flags of the usage's first lines (`usage: …` and its other forms), --root aside: every command takes it.
            let synopsis = usage.split(separator: "\n").prefix { $0.hasPrefix("usage:") || $0.hasPrefix("       ") }
            let flags = Set(
                synopsis.flatMap { $0.split(whereSeparator: { " []|".contains($0) }) }.filter { $0.hasPrefix("--") }
                    .map(String.init)
            ).subtracting(["--root"])
            #expect(
                flags == documented[name] ?? [],
                "\(name): the usage has \(flags), docs/cli.md \(documented[name] ?? [])")
        }
    }

    /// Every command's `--help`, word for word, is its part of docs/cli.md's "Every command's arguments"
    /// (`lessons docs --write` writes it from the same tables).
    @Test func everyCommandsHelpIsItsReferenceInTheDocs() async throws {
        let text = try String(contentsOf: CLIDocs.url, encoding: .utf8)
        let sections = text.components(separatedBy: "\n#### ").dropFirst()
        let names = try await LessonsCommandTests.commandNames()
        #expect(sections.count == names.count)
        for name in names {
            let usage = try await SharedRuns.shared.product("lessons", [name, "--help"]).standardOutput
            let lines = usage.split(separator: "\n").map(String.init)
            let synopsis = lines[0].dropFirst("usage: ".count)
            // "  --seed N   the seed": the argument, then its help after two spaces or more.
            let rows = lines.dropFirst().prefix { $0.hasPrefix("  ") }.map { line in
                let body = line.dropFirst(2)
                let argument = body.components(separatedBy: "  ")[0]
                let help = body.dropFirst(argument.count).drop { $0 == " " }
                return "| `\(argument)` | \(help.replacingOccurrences(of: "|", with: "\\|")) |"
            }
            guard let section = sections.first(where: { $0.hasPrefix("`\(synopsis)`\n") }) else {
                Issue.record("docs/cli.md has no heading `\(synopsis)`: lessons docs --write")
                continue
            }
            #expect(section.split(separator: "\n").filter { $0.hasPrefix("| `") }.map(String.init) == rows, "\(name)")
        }
    }
}
