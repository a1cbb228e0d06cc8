import Foundation
import LessonKit
import Testing

/// One declarative table per command line: a flag declared in it is parsed,
/// listed by `--help` and written into docs/cli.md, with nothing else written.
@Suite struct FlagTableTests {
    struct Options: Equatable {
        var number: Int?
        var seed: UInt64 = 1
        var markdown = false
        var json = false
        var verbose = false
        var rest: [String] = []
    }

    static var table: FlagTable<Options> {
        FlagTable(
            Options(),
            words: [.optional("N", help: "the exercise") { options, word in options.number = Int(word) }],
            flags: [
                .value("--seed", .seed, \.seed, help: "the seed"),
                .switch("--markdown", \.markdown, help: "a Markdown table"),
                .switch("--json", \.json, help: "JSON"),
            ],
            exclusive: [["--markdown", "--json"]])
    }

    @Test func aFlagAddedToTheTableIsParsedListedAndDocumented() throws {
        var table = Self.table
        #expect(throws: UsageError("unknown flag --verbose")) { try table.parse(["--verbose"]) }
        #expect(!table.usage(program: "lessons demo").contains("--verbose"))
        #expect(!table.markdown(program: "lessons demo", abstract: "a demo").contains("--verbose"))

        table.flags.append(.switch("--verbose", \.verbose, help: "say more"))
        #expect(try table.parse(["3", "--verbose"]) == Options(number: 3, verbose: true))
        let usage = table.usage(program: "lessons demo").split(separator: "\n").map(String.init)
        #expect(usage.first == "usage: lessons demo [N] [--seed N] [--markdown | --json] [--verbose]")
        #expect(usage.contains("  --verbose   say more"))
        let markdown = table.markdown(program: "lessons demo", abstract: "a demo")
        #expect(markdown.hasPrefix("#### `lessons demo [N] [--seed N] [--markdown | --json] [--verbose]`\n\na demo\n"))
        #expect(markdown.hasSuffix("| `--json` | JSON |\n| `--verbose` | say more |"))
        // A slip is answered with the flag meant, from the same table.
        #expect(throws: UsageError("unknown flag --verbos; did you mean --verbose?")) { try table.parse(["--verbos"]) }
    }

    @Test func aHiddenFlagIsParsedButShownNowhere() throws {
        var table = Self.table
        table.flags.append(Flag<Options>.switch("--verbose", \.verbose, help: "say more").hidden)
        #expect(try table.parse(["--verbose"])?.verbose == true)
        #expect(!table.usage(program: "lessons demo").contains("--verbose"))
        #expect(!table.markdown(program: "lessons demo", abstract: "").contains("--verbose"))
        #expect(throws: UsageError("unknown flag --verbos")) { try table.parse(["--verbos"]) }
    }

    static let badCommandLines: [([String], String)] = [
        (["--seed"], "--seed needs a value"),
        (["--seed", ""], "--seed needs a value"),
        (["--seed", "--json"], "--seed needs a value"),
        (["--seed", "x"], "--seed takes a whole number, not 'x'"),
        (["--markdown", "--json"], "choose one of --markdown and --json"),
        (["3", "4"], "unexpected argument '4'"),
        (["-x"], "unknown flag -x"),
    ]

    @Test(arguments: badCommandLines)
    func aBadCommandLineIsOneSentenceNamingTheFlag(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try Self.table.parse(arguments) }
    }

    @Test func helpAnywhereIsNilAndTheLastGivingWins() throws {
        #expect(try Self.table.parse(["--seed", "3", "--help"]) == nil)
        #expect(try Self.table.parse(["-h"]) == nil)
        #expect(try Self.table.parse(["--seed", "3", "--seed", "4"])?.seed == 4)
    }

    /// A command that hands its arguments on (`lessons run N [flags]`) takes its word first, keeps its own
    /// flags, and hands on the rest as they are, `--help` included.
    @Test func aTableThatHandsOnKeepsItsOwnFlags() throws {
        let table = FlagTable(
            Options(),
            words: [
                .required("N", help: "the step", missing: "run needs a step number") {
                    options, word throws(UsageError) in
                    guard let number = Int(word) else { throw UsageError("'\(word)' is not a step number") }
                    options.number = number
                }
            ],
            flags: [.switch("--json", \.json, help: "JSON")], handsOn: ("flags", \.rest))
        #expect(
            try table.parse(["2", "--speed", "4", "--json", "--help"])
                == Options(number: 2, json: true, rest: ["--speed", "4", "--help"]))
        #expect(try table.parse(["--help"]) == nil)
        #expect(throws: UsageError("run needs a step number")) { try table.parse([]) }
        #expect(throws: UsageError("'--speed' is not a step number")) { try table.parse(["--speed"]) }
        #expect(table.synopsis == "N [--json] [flags]")
    }
}
