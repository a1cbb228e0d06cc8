import Foundation
import LessonChecks
import LessonKit
import TableKit
import TerminalKit
import Testing

/// What a learner's terminal gets: lines that fit its width, broken between
/// words; tables laid out narrower rather than wrapped; no colour when asked
/// for none (`NO_COLOR`) or when the terminal has none (`TERM=dumb`).
@Suite struct TerminalWidthTests {
    /// The lines of `text` wider than `width` display columns.
    static func overflowing(_ text: String, _ width: Int = 80) -> [String] {
        text.split(separator: "\n").map(String.init).filter { TerminalText.width(of: $0) > width }
    }

    // MARK: wrapping

    @Test func aLongLineIsBrokenBetweenWordsOnly() {
        let line = "            all visible icons shown after 2000 ms · at the end 0/8 rows show their own icon"
        let lines = TerminalText.wrapped(line, width: 60).split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { TerminalText.width(of: $0) <= 60 })
        // Every word is whole, in order: joining the lines gives the line back.
        #expect(
            lines.map { $0.split(separator: " ").joined(separator: " ") }.joined(separator: " ")
                == line.split(separator: " ").joined(separator: " "))
        // The continuation starts where the text does.
        let second = lines.dropFirst().first ?? ""
        #expect(second.hasPrefix("            ") && !second.hasPrefix("             "))
    }

    @Test func continuationLinesStartUnderTheText() {
        let flag = "  --scenario NAME  the script every step plays (default: standard): standard, fast-scroll-slow-rows"
        #expect(
            TerminalText.wrapped(flag, width: 60).split(separator: "\n").dropFirst().allSatisfy {
                $0.hasPrefix(String(repeating: " ", count: 19)) && $0.dropFirst(19).first != " "
            })
        let label = "    measured: longest main-queue stall 4000 ms · 40 requests for 28 icons · 8/8 rows"
        let measured = TerminalText.wrapped(label, width: 50).split(separator: "\n").dropFirst().first ?? ""
        #expect(measured.hasPrefix(String(repeating: " ", count: 14)) && measured.dropFirst(14).first != " ")
        let item = "- a list item long enough to be broken somewhere along the way"
        let next = TerminalText.wrapped(item, width: 30).split(separator: "\n").dropFirst().first ?? ""
        #expect(next.hasPrefix("  ") && next.dropFirst(2).first != " ")
    }

    /// A step's own flag, whatever the length of its name: its help wraps under
    /// the help column, not under the flag.
    @Test func aVariantsHelpWrapsUnderTheHelpColumn() {
        let help = "a help text long enough to need a second line on a terminal of eighty columns"
        for name in ["short", "seventeen-letterz", "eighteen-character", "a-name-wider-than-the-column"] {
            let usage = LessonOptions.usage(
                program: "LessonNN", scenarios: ["standard"], stepFlags: [.step("--" + name, help: help)])
            let lines = TerminalText.wrapped(usage, width: 80).split(separator: "\n").map(String.init)
            let first = lines.firstIndex { $0.hasPrefix("  --\(name)") } ?? lines.endIndex
            let helpLines = lines[first...].dropFirst().prefix { $0.hasPrefix("   ") }
            #expect(!helpLines.isEmpty, "--\(name): its help has a second line")
            for line in helpLines {
                #expect(line.hasPrefix(String(repeating: " ", count: 23)) && line.dropFirst(23).first != " ", "--\(name): \(line)")
            }
        }
    }

    /// A check's verdict as `lessons check` prints it on an 80-column
    /// terminal: every line fits, continuations start under the text after
    /// "measured:", "seen:", "hint:", and no `file:line:col` or code in
    /// backticks is broken across two lines. The texts are a real race
    /// verdict's (`lessons check 5` on exercise 5's starting code), and a hint
    /// in the words of the crash hint for a subscript, its code reaching past
    /// the 80th column when broken between words only.
    @Test func aLongVerdictFitsEightyColumnsKeepingPlacesAndCodeWhole() throws {
        let file = "Workbench/Sources/Workbench/AppsViewController.swift"
        let race = try #require(ExerciseCatalog.exercise(5)?.bugs.first { $0.name == RaceCheck.bug.name })
        let results = [
            CheckResult(
                bug: race.name, passed: false, measured: "4 Thread Sanitizer reports (first: \(file):51:39)",
                expected: race.expected,
                hint: "Touch the cache and the pool only on the main queue, inside "
                    + "`OperationQueue.main.addOperation { … }`: there `if let image = imageCache[app.icon]` is safe.",
                isSafeguard: false,
                diagnosis: "`imageCache` (of an `AppsViewController`) written by thread T5 at \(file):51:39 and read "
                    + "on the main queue (thread T4) at \(file):42:9, with nothing ordering the two")
        ]
        let shown = TerminalText.wrapped(results.rendered(exercise: 5), width: 80)
        let lines = shown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(Self.overflowing(shown).isEmpty, "\(Self.overflowing(shown))")
        for whole in [
            "\(file):51:39", "\(file):42:9", "`OperationQueue.main.addOperation { … }`",
            "`if let image = imageCache[app.icon]`", "`AppsViewController`",
        ] {
            #expect(lines.contains { $0.contains(whole) }, "\(whole) is cut:\n\(shown)")
        }
        let block = lines.drop { !$0.hasPrefix("    measured:") }.prefix { !$0.isEmpty }
        let continuations = block.filter { !$0.hasPrefix("    ") || $0.dropFirst(4).first == " " }
        #expect(
            continuations.count > 3 && continuations.allSatisfy { $0.hasPrefix(String(repeating: " ", count: 14)) },
            "\(shown)")
    }

    @Test func widthsAreColumnsNotCharacters() {
        #expect(TerminalText.width(of: "抖音 ×") == 6)
        #expect(TerminalText.width(of: "\u{1B}[32m✓\u{1B}[0m fixed") == 7)
        // A word wider than the line is left whole, on a line of its own.
        #expect(
            TerminalText.wrapped("a Sources/Lesson07CustomOperation/DownloadOperation.swift b", width: 20)
                .split(separator: "\n") == ["a", "Sources/Lesson07CustomOperation/DownloadOperation.swift", "b"])
        #expect(TerminalText.wrapped("short", width: nil) == "short")
    }

    /// A read of a pseudo-terminal can end inside a character: the screen the
    /// tests read holds it whole. Decoded read by read, a "·" cut in two was two
    /// replacement characters, and its line one column too wide for 80.
    @Test func aCharacterCutBetweenTwoReadsIsReadWhole() {
        let text = "a · 微 🙂 b"
        let bytes = Array(text.utf8)
        for cut in 0...bytes.count {
            var decoder = ScreenDecoder()
            let read = decoder.text(of: bytes[..<cut]) + decoder.text(of: bytes[cut...]) + decoder.rest()
            #expect(read == text, "cut after byte \(cut)")
        }
        var byteByByte = ScreenDecoder()
        #expect(bytes.map { byteByByte.text(of: [$0][...]) }.joined() + byteByByte.rest() == text)
        var cutShort = ScreenDecoder()
        #expect(cutShort.text(of: bytes[..<3]) + cutShort.rest() == "a \u{FFFD}", "a screen that ends inside a character")
    }

    // MARK: what the terminal is

    @Test func noColorAndDumbTerminalsGetNoColour() {
        let plain = TerminalOutput(isTerminal: true, terminalColumns: 80, environment: ["TERM": "xterm"])
        #expect(plain.showsColour && plain.drawsInPlace && plain.columns == 80)
        let noColor = TerminalOutput(isTerminal: true, terminalColumns: 80, environment: ["NO_COLOR": "1"])
        #expect(!noColor.showsColour && noColor.drawsInPlace)
        // NO_COLOR set but empty asks for nothing (no-color.org).
        #expect(TerminalOutput(isTerminal: true, terminalColumns: 80, environment: ["NO_COLOR": ""]).showsColour)
        let dumb = TerminalOutput(isTerminal: true, terminalColumns: 80, environment: ["TERM": "dumb"])
        #expect(!dumb.showsColour && !dumb.drawsInPlace)
        let pipe = TerminalOutput(isTerminal: false, terminalColumns: nil, environment: [:])
        #expect(pipe.columns == nil && !pipe.showsColour)
        #expect(TerminalOutput(isTerminal: false, terminalColumns: nil, environment: ["COLUMNS": "72"]).columns == 72)
        // The terminal's own width wins over a stale COLUMNS.
        #expect(TerminalOutput(isTerminal: true, terminalColumns: 120, environment: ["COLUMNS": "72"]).columns == 120)
    }

    @Test func theLiveScreenFitsANarrowTerminalAndClearsEachLine() {
        let image = Image.placeholder
        let rows = (0..<8).map {
            VisibleRow(row: 10 + $0, title: "Zhihu 知乎 long name", detail: "389万", image: image, progress: 0.5)
        }
        let snapshot = ScreenSnapshot(contentOffset: 0, rows: rows)
        for colours in [true, false] {
            let screen = TerminalScreen(style: .colour, terminalLines: 24, columns: 40, colours: colours)
            let drawn = screen.render(
                header: "Lesson 07 · custom Operation · scenario standard: the first screen, a drag…",
                snapshot: snapshot, marks: [10: "✗ row 28's icon!"],
                status: ["requests 9 (9 icons, 0 dup) · in flight 3\nstall max 0 ms · dropped 0 · wrong-icon frames 0"])
            let lines = drawn.dropFirst(3).components(separatedBy: "\u{1B}[K\n")
            #expect(lines.count == 1 + 8 * 2 + 2)
            #expect(Self.overflowing(lines.joined(separator: "\n"), 40).isEmpty, "colours: \(colours)")
            // Colour codes only with colours; the shaded icon is drawn either way.
            #expect(drawn.contains("\u{1B}[38;2;") == colours)
            #expect(colours || drawn.contains { "░▒▓█".contains($0) })
        }
    }

    // MARK: tables

    static func report(stall: Double, placeholders: Int) -> Report {
        var report = Report()
        report.requests = 48
        report.uniqueURLs = 28
        report.bytes = 37_488
        report.maxMainStallMs = stall
        report.placeholderFrames = placeholders
        report.timeToAllVisibleMs = 2000
        report.idealTimeToAllVisibleMs = 2000
        report.liveImageBytes = 14_592
        return report
    }

    @Test func theScoreboardIsCutIntoPartsThatFit() {
        let rows =
            LessonCatalog.imageListSteps.map {
                Scoreboard.Row(
                    lesson: $0.id, title: $0.title, outcome: .measured(Self.report(stall: 4000, placeholders: 480)))
            } + [Scoreboard.Row(lesson: "99", title: "broken", outcome: .failed("crashed (signal 11)"), crashedRuns: 2)]
        let wide = Scoreboard.text(rows, heading: "heading")
        #expect(Self.overflowing(wide, 120).count > 0, "the whole table is wider than 120 columns")
        for width in [80, 60] {
            let narrow = Scoreboard.text(rows, heading: "heading", width: width)
            #expect(Self.overflowing(narrow, width).isEmpty, "\(narrow)")
            for column in Scoreboard.columns { #expect(narrow.contains(column.header)) }
            // Each step's full name once, in the first part; its number in every part.
            #expect(narrow.components(separatedBy: "02 async with a placeholder").count == 2)
            #expect(narrow.split(separator: "\n").filter { $0.hasPrefix("02 ") }.count >= 2)
            #expect(narrow.contains("crashed (signal 11)"))
        }
    }

    @Test func theBugMatrixGetsANarrowLayout() {
        let steps = LessonCatalog.imageListSteps
        let matrix = BugMatrix.render(bugs: KnownBug.all, steps: steps, markdown: false, width: 80) { run in
            run.lesson == 4 ? .failed("crashed (signal 11)") : .measured(Self.report(stall: 4000, placeholders: 480))
        }
        #expect(Self.overflowing(matrix).isEmpty, "\(matrix)")
        for (index, bug) in KnownBug.all.enumerated() {
            #expect(matrix.contains("\(index + 1)   ".prefix(4) + bug.name))
        }
        #expect(matrix.contains("on standard · N blank frames"))
        #expect(matrix.contains("✗ 4000"))
        #expect(matrix.contains("crash"))
        // Wide enough, the one-line-per-bug table as before.
        let wide = BugMatrix.render(bugs: KnownBug.all, steps: steps, markdown: false, width: nil) { _ in nil }
        #expect(wide.split(separator: "\n").count == KnownBug.all.count + 1)
    }

    /// The screens this round changed, at `COLUMNS=80` off a terminal as on
    /// an 80-column one: compare's two tables and its reason for more
    /// requests, bench's reading, the did-you-mean errors.
    @Test func theChangedScreensFitEightyColumns() async throws {
        let commands: [[String]] = [
            ["compare", "3", "--plain"], ["compare", "4", "--plain"], ["compare", "6", "--plain"],
            ["bench", "--units", "1000", "--rounds", "1"], ["run", "2", "--scenaro", "standard"],
            ["compare", "3", "--scenario", "standrd"], ["watch", "--max-check", "3"],
        ]
        for arguments in commands {
            let run = try await Rig.runProduct("lessons", arguments, environment: ["COLUMNS": "80"])
            #expect(!run.standardOutput.isEmpty || !run.standardError.isEmpty, "\(arguments)")
            #expect(
                Self.overflowing(run.standardOutput).isEmpty, "\(arguments): \(Self.overflowing(run.standardOutput))")
            #expect(Self.overflowing(run.standardError).isEmpty, "\(arguments): \(Self.overflowing(run.standardError))")
        }
    }
}
