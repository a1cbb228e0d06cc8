import Foundation
import LessonKit
import TableKit
import TerminalKit

/// The machine on a terminal: its big digits, the button, and what the
/// queue is doing, read from the machine's labels, button and queue. Redrawn
/// from the main queue by a frame clock, like a screen refresh; with
/// `--plain` (or not a terminal) one status line per script step instead.
@MainActor
final class LotteryScreen {
    let session: ScreenSession
    let console: LessonConsole
    let header: String
    /// What the keyboard does, or what the script is doing.
    var hint = ""
    /// What the last key typed did, under the queue's line.
    var lastKey: String?
    private var clock: FrameClock?
    private var lastDrawn = ""
    private var rollsAtLastPress = 0

    init(session: ScreenSession, console: LessonConsole, header: String) {
        self.session = session
        self.console = console
        self.header = header
    }

    /// Call on the main queue.
    func start() {
        guard console.isLive else { return }
        console.write("\u{1B}[2J\u{1B}[?25l")
        // The frame clock fires on the main queue.
        let clock = FrameClock { [weak self] in MainActor.assumeIsolated { self?.draw() } }
        self.clock = clock
        clock.start()
    }

    /// Call on the main queue.
    func stop() {
        clock?.stop()
        clock = nil
        if console.isLive {
            draw()
            console.write("\u{1B}[0m\u{1B}[?25h\n")
        }
    }

    /// The button was pressed: "since the last press" counts from here.
    func pressed() {
        rollsAtLastPress = session.rolls.count
    }

    /// One line for plain output.
    func statusLine() -> String {
        let digits = session.outlets.labels.map { $0.text ?? "?" }.joined(separator: " ")
        return "digits \(digits) · button \"\(session.button.title)\" · " + queueStatus()
    }

    private func queueStatus() -> String {
        let rolls = session.rolls.count
        return
            "operationCount \(session.operationCount) · isSuspended \(session.queue?.isSuspended == true)"
            + " · rolls \(rolls)"
            + " (\(rolls - rollsAtLastPress) since the last press)"
            + " · main-queue violations \(Instruments.current?.mainQueueViolations.count ?? 0)"
    }

    private func draw() {
        let digits = session.outlets.labels.map { min(max(Int($0.text ?? "") ?? 0, 0), 9) }
        var lines = [header, ""]
        for row in 0..<5 {
            lines.append(
                "   "
                    + digits.map {
                        Self.font[$0][row].replacingOccurrences(of: "#", with: "██").replacingOccurrences(
                            of: " ", with: "  ")
                    }.joined(separator: "  "))
        }
        lines += ["", "   [ \(session.button.title) ]    \(hint)", ""]
        // Broken between its parts on a narrow terminal: a wrapped line would push the screen down.
        lines += TerminalText.wrappedLine(
            "   " + queueStatus(), width: StandardStream.output.terminal.columns ?? .max, continuation: "   ")
        if let lastKey {
            lines += TerminalText.wrappedLine(
                "   " + lastKey, width: StandardStream.output.terminal.columns ?? .max, continuation: "   ")
        }
        let screen = "\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\n") + "\u{1B}[J"
        guard screen != lastDrawn else { return }
        lastDrawn = screen
        console.write(screen)
    }

    /// 3 × 5 digits; each "#" is drawn two characters wide so they look square.
    private static let font: [[String]] = [
        ["###", "# #", "# #", "# #", "###"], [" # ", "## ", " # ", " # ", "###"], ["###", "  #", "###", "#  ", "###"],
        ["###", "  #", "###", "  #", "###"], ["# #", "# #", "###", "  #", "  #"], ["###", "#  ", "###", "  #", "###"],
        ["###", "#  ", "###", "# #", "###"], ["###", "  #", "  #", "  #", "  #"], ["###", "# #", "###", "# #", "###"],
        ["###", "# #", "###", "  #", "###"],
    ]
}
