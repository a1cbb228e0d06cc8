import Foundation
import LessonKit
import SlowNetwork
import TableKit
import TerminalKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Whoever hands a learner a catalog must not control their terminal: app
/// names and download fields are data, shown (escaped where they are not
/// printable), never obeyed. And columns stay aligned, counted as the
/// terminal draws them.
@Suite struct TerminalSafetyTests {
    /// Each is something a terminal would obey, or would draw wider or longer than it looks.
    static let hostileNames = [
        "\u{1B}]0;PWNED\u{07}",  // sets the window's title
        "\u{1B}[?1049h",  // switches to the alternate screen
        "\u{1B}[2J\u{1B}[H",  // clears the screen
        "\u{1B}c",  // resets the terminal
        "line\r\nbreak",
        "\u{9B}31mC1",  // CSI as one C1 code point
        "\u{7F}delete",
        "\u{202E}reversed",
        "nul\u{0}byte",
        "tab\there",
        "e" + String(repeating: "\u{301}", count: 100_000),  // one character of 100,000 combining marks
        "微信微信微信微信微信",
    ]

    static func snapshot(titles: [String], detail: String) -> ScreenSnapshot {
        ScreenSnapshot(
            contentOffset: 0,
            rows: titles.enumerated().map { VisibleRow(row: $0, title: $1, detail: detail, image: nil) })
    }

    /// Control characters in `text` that did not come from the renderer's own line breaks.
    static func controls(in text: String, allowingEscape: Bool) -> [String] {
        text.unicodeScalars.compactMap { scalar in
            switch scalar.value {
            case 0x0A: nil
            case 0x1B where allowingEscape: nil
            case 0x00...0x1F, 0x7F, 0x80...0x9F, 0x202A...0x202E, 0x2066...0x2069:
                String(format: "U+%04X", scalar.value)
            default: nil
            }
        }
    }

    @Test(arguments: [TerminalScreen.Style.colour, .plain])
    func hostileNamesReachTheScreenAsTextOnly(style: TerminalScreen.Style) {
        let screen = TerminalScreen(style: style, terminalLines: 40, columns: 80)
        let hostile = screen.render(
            header: "header", snapshot: Self.snapshot(titles: Self.hostileNames, detail: "\u{1B}[31mred"), marks: [:],
            status: ["status"])
        let benign = screen.render(
            header: "header", snapshot: Self.snapshot(titles: Self.hostileNames.map { _ in "x" }, detail: "red"),
            marks: [:], status: ["status"])
        // The renderer's own escape sequences (colours, cursor home, clear to
        // end of line) are the same for both: none came from the data.
        #expect(hostile.filter { $0 == "\u{1B}" }.count == benign.filter { $0 == "\u{1B}" }.count)
        #expect(hostile.filter { $0 == "\n" }.count == benign.filter { $0 == "\n" }.count, "a CR or LF broke a row")
        #expect(Self.controls(in: hostile, allowingEscape: style == .colour) == [])
        // Shown, escaped, as far as the column goes.
        #expect(hostile.contains("\\u{1B}]0;PWNED"))
        #expect(hostile.contains("line\\r\\nbreak"))
        #expect(hostile.contains("\\u{202E}reversed"))
        // The 100,000 marks are cut to a few.
        #expect(hostile.unicodeScalars.count < 10_000, "\(hostile.unicodeScalars.count) code points")
    }

    @Test func namesAreCutAndPaddedByDisplayWidth() {
        #expect(TerminalText.fitted("QQ", to: 5) == "QQ   ")
        #expect(TerminalText.fitted("abcdefghijklmnop", to: 16) == "abcdefghijklmnop")
        #expect(TerminalText.fitted("abcdefghijklmnopq", to: 16) == "abcdefghijklmno…")
        // Two columns a CJK character: seven of them and "…" fill 15 columns, one space makes 16.
        #expect(TerminalText.fitted("微信微信微信微信微信", to: 16) == "微信微信微信微… ")
        #expect(TerminalText.fitted("微信", to: 3) == "微…")
        #expect(TerminalText.fitted("e\u{301}", to: 3) == "e\u{301}  ")
        #expect(TerminalText.fitted("a\u{1B}b", to: 10) == "a\\u{1B}b  ")
        let marks = TerminalText.fitted("e" + String(repeating: "\u{301}", count: 100_000), to: 4)
        #expect(marks.unicodeScalars.count == TerminalText.maxScalarsPerCharacter + 3)
        #expect(marks.hasSuffix("   "))
    }

    /// The plain screen's rows line up whatever script their names are in.
    @Test func plainRowsStayAlignedWithWideCharacters() {
        let screen = TerminalScreen(style: .plain)
        let text = screen.render(
            header: "", snapshot: Self.snapshot(titles: ["QQ", "微信", "e\u{301}"], detail: "100万"),
            marks: [0: "✓", 1: "✓", 2: "✓"], status: [])
        let lines = text.split(separator: "\n").map(String.init)
        func pad(_ count: Int) -> String { String(repeating: " ", count: count) }
        #expect(
            lines == [
                "[      ]   0 QQ" + pad(14) + " 100万" + pad(3) + " ✓",
                "[      ]   1 微信" + pad(12) + " 100万" + pad(3) + " ✓",
                "[      ]   2 e\u{301}" + pad(15) + " 100万" + pad(3) + " ✓",
            ])
    }

    /// A catalog of hostile names, written as a binary plist (XML cannot hold a NUL).
    static func hostileCatalog(in folder: URL) throws -> URL {
        let file = folder.appendingPathComponent("hostile.plist")
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        let entries = hostileNames.enumerated().map {
            AppEntry(name: $1, icon: "https://cdn.example.com/hostile/\($0).png", download: "\u{1B}[5m\($0)")
        }
        try encoder.encode(entries).write(to: file)
        return file
    }

    /// The whole step, with `--plain`: not one control character from the catalog on standard output.
    @Test func thePlainScreenOfAHostileCatalogHoldsNoControlCharacter() async throws {
        let folder = try ScratchFolder.make("hostile")
        defer { ScratchFolder.remove(folder) }
        let catalog = try Self.hostileCatalog(in: folder)
        let run = try await Rig.runProduct(
            "Lesson02AsyncPlaceholder", ["--plain", "--catalog", catalog.path, "--scenario", "offline", "--offline"])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(Self.controls(in: run.standardOutput, allowingEscape: false) == [])
        #expect(run.standardOutput.contains("\\u{1B}]0;PWNED"))
    }

    /// The live screen on a terminal: the catalog's sequences never reach it as sequences.
    @Test func theLiveScreenOfAHostileCatalogObeysNoneOfIt() async throws {
        let folder = try ScratchFolder.make("hostile")
        defer { ScratchFolder.remove(folder) }
        let catalog = try Self.hostileCatalog(in: folder)
        let run = try await PseudoTerminal.run(
            "Lesson02AsyncPlaceholder",
            arguments: ["--catalog", catalog.path, "--scenario", "offline", "--offline", "--speed", "50"])
        #expect(run.status == 0)
        for sequence in ["\u{1B}]0;", "\u{1B}[?1049h", "\u{1B}c", "\u{1B}[5m", "\u{9B}", "\u{7}", "\u{202E}"] {
            #expect(!run.output.contains(sequence), "the terminal got \(sequence.debugDescription)")
        }
        #expect(run.output.contains("\\u{1B}]0;PWNED"))
        // The screen was cleared once, by the step itself, not again by a name.
        #expect(run.output.components(separatedBy: "\u{1B}[2J").count == 2)
    }

    /// An error message names what the learner typed, escaped too.
    @Test func anErrorNamingAHostileFileNameIsPrintable() async throws {
        let folder = try ScratchFolder.make("hostile")
        defer { ScratchFolder.remove(folder) }
        let file = folder.appendingPathComponent("evil\u{1B}]0;PWNED\u{07}.plist")
        try Data().write(to: file)
        let run = try await Rig.runProduct("Lesson01SyncLoad", ["--catalog", file.path, "--json"])
        #expect(run.status == 1)
        #expect(Self.controls(in: run.standardError, allowingEscape: false) == [])
        #expect(run.standardError.contains("evil\\u{1B}]0;PWNED\\u{7}.plist is empty"))
    }

    /// Ctrl-C, Ctrl-\, SIGTERM or SIGHUP (the terminal closed) on the live
    /// screen: the cursor it hid is shown again, and the run ends.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP, SIGQUIT])
    func theLiveScreenShowsTheCursorAgainHoweverItIsEnded(signal: Int32) async throws {
        // At a fifth of its speed the story takes minutes: the signal comes long before its end.
        let run = try await PseudoTerminal.run(
            "Lesson02AsyncPlaceholder", arguments: ["--speed", "0.2"],
            keys: [.signal(signal, after: "Lesson 02 ·")])
        #expect(run.status == 128 + signal)
        let hidden = try #require(run.output.range(of: "\u{1B}[?25l", options: .backwards))
        let shown = run.output.range(of: "\u{1B}[?25h", options: .backwards)
        #expect(shown.map { $0.lowerBound > hidden.lowerBound } == true, "the cursor was left hidden")
        #expect(!run.output.contains("Backtrac"), "Ctrl-\\ ends the run; it is no crash")
    }
}
