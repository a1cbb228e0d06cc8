import Foundation
import LessonKit
import Testing

@Suite struct LessonOptionsTests {
    @Test func noFlagsGiveTheDefaults() throws {
        let options = try LessonOptions.parse([])
        #expect(options == LessonOptions())
        #expect(options.speed == 1 && options.seed == 1 && options.failRate == 0)
        #expect(options.scenario == nil && options.latencyMs == nil && options.catalogPath == nil)
        #expect(!options.json && !options.plain && !options.offline && !options.clearCache && !options.help)
    }

    @Test func everyFlagSetsItsOption() throws {
        let options = try LessonOptions.parse([
            "--scenario", "offline", "--latency", "120", "--speed", "20", "--offline", "--fail-rate", "0.25",
            "--seed", "18446744073709551615", "--json", "--timeline", "/tmp/run.svg", "--plain", "--catalog",
            "apps.plist", "--clear-cache", "--help",
        ])
        var expected = LessonOptions()
        expected.scenario = "offline"
        expected.latencyMs = 120
        expected.speed = 20
        expected.offline = true
        expected.failRate = 0.25
        expected.seed = .max
        expected.json = true
        expected.timelinePath = "/tmp/run.svg"
        expected.plain = true
        expected.catalogPath = "apps.plist"
        expected.clearCache = true
        expected.help = true
        #expect(options == expected)
        #expect(try LessonOptions.parse(["-h"]).help)
        // The last of a repeated flag wins.
        #expect(try LessonOptions.parse(["--speed", "2", "--speed", "3"]).speed == 3)
    }

    @Test func aLessonsOwnFlagsAreParsedAndListed() throws {
        let extra: [Flag<LessonOptions>] = [
            .step("--script", .list("STEPS"), help: "keys to press"),
            .step("--slow-motion", help: "one digit a second"),
            .step("--variant", .choice(["broken", "fixed"]), help: "which"),
        ]
        let options = try LessonOptions.parse(["--script", "sp.r", "--slow-motion", "--json"], stepFlags: extra)
        #expect(options.extra == ["script": "sp.r", "slow-motion": "true"])
        #expect(options.json)
        #expect(throws: UsageError("--script needs a value")) {
            try LessonOptions.parse(["--script"], stepFlags: extra)
        }
        // A list that names nothing, and a choice that is none, are refused by the table, naming the flag.
        #expect(throws: UsageError("--script needs a value")) { try LessonOptions.parse(["--script", ","], stepFlags: extra) }
        #expect(throws: UsageError("--variant takes broken or fixed, not 'both'")) {
            try LessonOptions.parse(["--variant", "both"], stepFlags: extra)
        }
        #expect(try LessonOptions.parse(["--variant", "fixed"], stepFlags: extra).extra == ["variant": "fixed"])
        #expect(throws: UsageError("unknown flag --script")) { try LessonOptions.parse(["--script", "x"]) }
        let usage = LessonOptions.usage(program: "Lesson09", scenarios: ["standard"], stepFlags: extra)
        #expect(usage.contains("--script STEPS") && usage.contains("keys to press"))
        #expect(usage.contains("--variant broken|fixed"))
        #expect(usage.contains("--slow-motion") && usage.contains("one digit a second"))
    }

    static let badCommandLines: [([String], String)] = [
        (["--bogus"], "unknown flag --bogus"),
        (["-x"], "unknown flag -x"),
        (["stray"], "unexpected argument 'stray'"),
        (["--speed"], "--speed needs a value"),
        (["--speed", "--json"], "--speed needs a value"),
        (["--speed", "fast"], "--speed takes a number from 0.1 to 1000, not 'fast'"),
        (["--speed", "0"], "--speed takes a number from 0.1 to 1000, not '0'"),
        (["--speed", "inf"], "--speed takes a number from 0.1 to 1000, not 'inf'"),
        (["--latency", "-5"], "--latency takes a number from 0 to 60000, not '-5'"),
        (["--fail-rate", "1.5"], "--fail-rate takes a number from 0 to 1, not '1.5'"),
        (["--fail-rate", "nan"], "--fail-rate takes a number from 0 to 1, not 'nan'"),
        (["--seed", "-1"], "--seed takes a whole number, not '-1'"),
        (["--seed", "1.5"], "--seed takes a whole number, not '1.5'"),
        (["--scenario"], "--scenario needs a value"),
        (["--timeline"], "--timeline needs a value"),
        (["--catalog"], "--catalog needs a value"),
        (["--json", "--catalog", "--plain"], "--catalog needs a value"),
    ]

    @Test(arguments: badCommandLines)
    func aBadCommandLineIsAOneLineUsageError(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try LessonOptions.parse(arguments) }
        #expect(!message.contains("\n"))
    }

    /// A placeholder value for each metavariable docs/cli.md uses.
    static let sampleValues = [
        "NAME": "standard", "MS": "100", "X": "4", "P": "0.1", "N": "7", "FILE.svg": "/tmp/t.svg", "FILE": "a.plist",
    ]

    @Test func everyDocumentedFlagIsParsedAndInTheUsage() throws {
        let documented = try CLIDocs.tableKeys(under: "## Flags")
        #expect(documented.count >= 11)
        // Word for word: each flag with its value's name, as the table declares it and `--help` shows it.
        let table = LessonOptions.table(scenarios: Scenario.all.map(\.name))
        #expect(documented == Set(table.shown.map(\.synopsis)))
        let usage = LessonOptions.usage(program: "LessonNN", scenarios: Scenario.all.map(\.name))
        for flag in table.shown { #expect(usage.contains("\n  \(flag.synopsis) "), "\(flag.synopsis)") }
        for entry in documented {
            let words = entry.split(separator: " ").map(String.init)
            let arguments = [words[0]] + words.dropFirst().map { Self.sampleValues[$0] ?? "?" }
            do {
                #expect(try LessonOptions.parse(arguments) != LessonOptions(), "\(arguments) changes nothing")
            } catch {
                Issue.record("the documented \(arguments) is rejected: \(error)")
            }
        }
    }
}

/// docs/cli.md's "Flags of one step" and each step's `--help` name the same flags of its own, as the flag table
/// writes them (`--part LIST`): those its table adds to every lesson's (a variant's, a story's), the keys of
/// `--play` aside (`lessons play`'s row).
@Suite struct StepFlagsDocsTests {
    /// Each step's documented flags as written, by number: the code spans of its rows' second cell.
    static func documentedSynopses() throws -> [Int: Set<String>] {
        let text = try String(contentsOf: CLIDocs.url, encoding: .utf8)
        let table = text.components(separatedBy: "## Flags of one step")[1].components(separatedBy: "\n## ")[0]
        var flags: [Int: Set<String>] = [:]
        for line in table.split(separator: "\n") where line.hasPrefix("| ") {
            let cells = line.components(separatedBy: " | ")
            guard cells.count > 2, let step = Int(cells[0].dropFirst(2)) else { continue }
            let spans = cells[1].split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { $0.element.replacingOccurrences(of: "\\|", with: "|") }
            flags[step, default: []].formUnion(spans)
        }
        return flags
    }

    /// Each step's documented flags, by number: the first word of each code span of its rows' second cell.
    static func documented() throws -> [Int: Set<String>] {
        try documentedSynopses().mapValues { Set($0.compactMap { $0.split(separator: " ").first.map(String.init) }) }
    }

    @Test func everyStepsOwnFlagsAreDocumented() async throws {
        let documented = try Self.documented()
        let synopsesWritten = try Self.documentedSynopses()
        let common = Set(LessonOptions.table(scenarios: []).flags.map(\.name))
        for entry in LessonCatalog.all {
            let help = try await SharedRuns.shared.product(entry.target, ["--help"])
            #expect(help.status == 0, "\(entry.target)")
            let listed = Set(
                help.standardOutput.split(separator: "\n").filter { $0.hasPrefix("  --") }
                    .compactMap { $0.split(separator: " ").first.map(String.init) })
            let own = listed.subtracting(common).subtracting(["--play", "--script", "--record"])
            let written = documented[entry.number] ?? []
            #expect(own.isSubset(of: written), "step \(entry.number): --help has \(own), docs/cli.md \(written)")
            #expect(written.isSubset(of: listed), "step \(entry.number): --help has \(listed), docs/cli.md \(written)")
            // As the table writes them: the flag, then what its help calls the value.
            let synopses = Set(
                help.standardOutput.split(separator: "\n").filter { $0.hasPrefix("  --") }
                    .map { $0.dropFirst(2).components(separatedBy: "  ")[0] })
            let writtenWhole = synopsesWritten[entry.number] ?? []
            #expect(writtenWhole.isSubset(of: synopses), "step \(entry.number): --help has \(synopses)")
        }
    }
}

/// The built lesson executable, run as a child process: what a learner's shell sees.
@Suite struct LessonExecutableTests {
    @Test func aBadFlagExitsTwoWithOneLineAndTheUsage() async throws {
        let run = try await Rig.runProduct("Lesson01SyncLoad", ["--speed", "10", "--bogus"])
        #expect(run.status == 2)
        let lines = run.standardError.split(separator: "\n")
        #expect(lines.first == "Lesson01SyncLoad: unknown flag --bogus")
        #expect(lines.dropFirst().first == "usage: Lesson01SyncLoad [flags]")
        #expect(lines.contains { $0.contains("--speed X") })
        #expect(run.standardOutput.isEmpty)
    }

    @Test func anUnknownScenarioExitsTwo() async throws {
        let run = try await Rig.runProduct("Lesson01SyncLoad", ["--scenario", "nope"])
        #expect(run.status == 2)
        #expect(run.standardError.split(separator: "\n").first == "Lesson01SyncLoad: unknown scenario 'nope'")
    }

    @Test func helpExitsZeroWithTheUsage() async throws {
        let run = try await Rig.runProduct("Lesson01SyncLoad", ["--help"])
        #expect(run.status == 0)
        #expect(run.standardOutput.contains("usage: Lesson01SyncLoad [flags]"))
        #expect(run.standardOutput.contains("example: swift run Lesson01SyncLoad"))
    }

    static let badCatalogs: [(name: String, contents: String?, problem: String)] = [
        ("empty.plist", "", "is empty"),
        ("garbage.plist", "this is not a plist", "is not a valid property list"),
        (
            "dictionary.plist",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>name</key><string>QQ</string></dict></plist>
            """,
            "is not an array of {name, icon, download} dictionaries"
        ),
        (
            "missing-icon.plist",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><array>
            <dict><key>name</key><string>QQ</string><key>icon</key><string>https://x/qq.png</string>
            <key>download</key><string>1</string></dict>
            <dict><key>name</key><string>WeChat</string><key>download</key><string>2</string></dict>
            </array></plist>
            """,
            "row 1 has no 'icon' field"
        ),
        (
            "no-rows.plist",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><array/></plist>
            """,
            "has no rows"
        ),
        ("missing.plist", nil, "cannot be read"),
    ]

    @Test(arguments: badCatalogs)
    func aBadCatalogExitsOneNamingTheFile(name: String, contents: String?, problem: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalogs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(name)
        if let contents { try contents.write(to: file, atomically: true, encoding: .utf8) }

        let run = try await Rig.runProduct("Lesson01SyncLoad", ["--catalog", file.path, "--speed", "10", "--json"])
        #expect(run.status == 1)
        let lines = run.standardError.split(separator: "\n")
        #expect(lines.count == 1, "one line: \(run.standardError)")
        #expect(lines.first?.hasPrefix("Lesson01SyncLoad: catalog \(file.path) \(problem)") == true, "\(lines)")
        #expect(run.standardOutput.isEmpty)
    }

    /// Every command `lessons --help` lists has the same shape: `--help`
    /// prints its own usage and exits 0; a flag it does not know is one
    /// line naming the command, then that usage, exit status 2.
    @Test func everyLessonsCommandHasItsOwnHelpAndUsage() async throws {
        let help = try await SharedRuns.shared.product("lessons", ["--help"])
        #expect(help.status == 0)
        let lines = help.standardOutput.split(separator: "\n")
        let start = try #require(lines.firstIndex(of: "commands:"))
        let commands = lines[(start + 1)...].prefix { $0.hasPrefix("  ") }
            .map { String($0.split(separator: " ")[0]) }
        #expect(
            commands == [
                "list", "run", "next", "compare", "play", "scoreboard", "timelines", "framecost", "bench", "docs",
                "exercise", "check", "watch",
                "hint", "reset", "solution", "task", "site", "doctor",
            ])
        for command in commands {
            let own = try await SharedRuns.shared.product("lessons", [command, "--help"])
            #expect(own.status == 0, "\(command) --help")
            #expect(
                own.standardOutput.hasPrefix("usage: lessons \(command)"),
                "\(command): \(own.standardOutput.prefix(80))")
            let bad = try await Rig.runProduct("lessons", [command, "--no-such-flag"])
            #expect(bad.status == 2, "\(command) --no-such-flag")
            let errorLines = bad.standardError.split(separator: "\n")
            #expect(errorLines.first?.hasPrefix("lessons \(command): ") == true, "\(errorLines.first ?? "")")
            #expect(errorLines.dropFirst().first?.hasPrefix("usage: lessons \(command)") == true)
        }
    }

    @Test func theCatalogCommandListsEveryStepAndRejectsBadCommands() async throws {
        let list = try await Rig.runProduct("lessons", [])
        #expect(list.status == 0)
        for entry in LessonCatalog.all {
            #expect(list.standardOutput.contains("\(entry.id)  \(entry.title)"))
            // A step with a comparison is listed by it (CompareTests), the others by their run.
            let command = LessonComparison.of(entry.number) == nil ? "swift run lessons run" : "lessons run"
            #expect(list.standardOutput.contains("\(command) \(entry.number)"))
        }
        let unknown = try await Rig.runProduct("lessons", ["frobnicate"])
        #expect(unknown.status == 2)
        #expect(unknown.standardError.hasPrefix("lessons: unknown command 'frobnicate'\n"))
        let noStep = try await Rig.runProduct("lessons", ["run", "99"])
        #expect(noStep.status == 2)
        // `lessons run N` hands its flags to step N's executable.
        let badFlag = try await Rig.runProduct("lessons", ["run", "1", "--bogus"])
        #expect(badFlag.status == 2)
        // `lessons run` notes the step under the workspace lock: a test beside it holding that lock makes it say
        // it waits, first (as in DidYouMeanTests).
        let errors = badFlag.standardError.split(separator: "\n").filter {
            !$0.hasPrefix("lessons: another lessons command")
        }
        #expect(errors.first == "Lesson01SyncLoad: unknown flag --bogus")
    }
}

/// A misspelt flag, scenario or command is answered with the one meant, by
/// `lessons` and by a step alike; a word close to nothing gets no guess.
@Suite struct DidYouMeanTests {
    @Test func theClosestWordWithinTwoLettersIsMeant() {
        let flags = ["--scenario", "--speed", "--seed", "--max-checks"]
        #expect(DidYouMean.closest(to: "--scenaro", among: flags) == "--scenario")
        #expect(DidYouMean.closest(to: "--sped", among: flags) == "--speed")
        #expect(DidYouMean.closest(to: "--SEED", among: flags) == "--seed")
        #expect(DidYouMean.closest(to: "--max-check", among: flags) == "--max-checks")
        #expect(DidYouMean.closest(to: "--xyz", among: flags) == nil)
        // Two letters off a two-letter word is another word, not a slip.
        #expect(DidYouMean.closest(to: "ab", among: ["cd"]) == nil)
        #expect(
            UsageError.unknownFlag("--scenaro", among: flags).message
                == "unknown flag --scenaro; did you mean --scenario?")
        #expect(UsageError.unknownFlag("--xyz", among: flags).message == "unknown flag --xyz")
    }

    static let slips: [([String], String)] = [
        (
            ["run", "2", "--scenaro", "standard"],
            "Lesson02AsyncPlaceholder: unknown flag --scenaro; did you mean --scenario?"
        ),
        (
            ["run", "2", "--scenario", "standrd"],
            "Lesson02AsyncPlaceholder: unknown scenario 'standrd'; did you mean standard?"
        ),
        (["run", "8", "--prt", "2"], "Lesson08Dependencies: unknown flag --prt; did you mean --part?"),
        (
            ["compare", "3", "--scenario", "standrd"],
            "lessons compare: unknown scenario 'standrd'; did you mean standard?"
        ),
        (["compare", "3", "--sped", "3"], "lessons compare: unknown flag --sped; did you mean --speed?"),
        (["watch", "--max-check", "3"], "lessons watch: unknown flag --max-check; did you mean --max-checks?"),
        (["hint", "--mor"], "lessons hint: unknown flag --mor; did you mean --more?"),
        (
            ["scoreboard", "--scenario", "ofline"],
            "lessons scoreboard: unknown scenario 'ofline'; did you mean offline?"
        ),
        (["exercize"], "lessons: unknown command 'exercize'; did you mean: swift run lessons exercise?"),
        (["help", "wach"], "lessons help: unknown command 'wach'; did you mean: swift run lessons watch?"),
        (["run", "2", "--bogus"], "Lesson02AsyncPlaceholder: unknown flag --bogus"),
    ]

    @Test(arguments: slips)
    func aSlipIsAnsweredWithWhatWasMeant(arguments: [String], message: String) async throws {
        let run = try await SharedRuns.shared.product("lessons", arguments)
        #expect(run.status == 2)
        // `lessons run` notes the step in progress.json under the workspace lock: a test beside it holding that
        // lock makes it say it waits, first.
        let lines = run.standardError.split(separator: "\n").filter { !$0.hasPrefix("lessons: another lessons command") }
        #expect(lines.first.map(String.init) == message)
    }
}
