import Foundation
import LessonKit
import TableKit

/// The machine on a terminal: three big digits, the button, and what the
/// queue is doing. Redrawn from the main queue by a frame clock, like a
/// screen refresh; with `--plain` (or not a terminal) one status line per
/// script step instead.
final class LotteryScreen {
    let controller: LotteryViewController
    let console: LessonConsole
    let header: String
    /// What the keyboard does, or what the script is doing.
    var hint = ""
    private var clock: FrameClock?
    private var lastDrawn = ""
    private var updatesAtLastPress = 0

    init(controller: LotteryViewController, console: LessonConsole, header: String) {
        self.controller = controller
        self.console = console
        self.header = header
    }

    /// Call on the main queue.
    func start() {
        guard console.isLive else { return }
        console.write("\u{1B}[2J\u{1B}[?25l")
        let clock = FrameClock { [weak self] in self?.draw() }
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
        updatesAtLastPress = controller.updateCount
    }

    /// One line for plain output.
    func statusLine() -> String {
        let digits = controller.digitLabels.map { $0.text ?? "?" }.joined(separator: " ")
        return "digits \(digits) · button \"\(controller.buttonTitle)\" · " + queueStatus()
    }

    private func queueStatus() -> String {
        let count = controller.queue.operationCount
        return
            "operationCount \(count) · isSuspended \(controller.queue.isSuspended) · updates \(controller.updateCount)"
            + " (\(controller.updateCount - updatesAtLastPress) since the last press)"
            + " · main-queue violations \(Instruments.current?.mainQueueViolations.count ?? 0)"
    }

    private func draw() {
        let digits = controller.digitLabels.map { Int($0.text ?? "") ?? 0 }
        var lines = [header, ""]
        for row in 0..<5 {
            lines.append(
                "   "
                    + digits.map {
                        Self.font[$0][row].replacingOccurrences(of: "#", with: "██").replacingOccurrences(
                            of: " ", with: "  ")
                    }.joined(separator: "  "))
        }
        lines += [
            "", "   [ \(controller.buttonTitle) ]    \(hint)", "",
            "   " + queueStatus(),
        ]
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
