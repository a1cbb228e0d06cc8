import Foundation
import LessonKit

/// What the "user" does when nobody is at the keyboard:
/// `--script "start,wait 1,pause,wait 0.5,resume,wait 1,quit"`.
struct LotteryScript: Equatable, Sendable {
    enum Step: Equatable, Sendable, CustomStringConvertible {
        /// Press the button; `start`, `pause` and `resume` also say what it should read.
        case press(expecting: String?)
        /// Story seconds (divided by `--speed`).
        case wait(Double)
        case quit

        var description: String {
            switch self {
            case .press(let title?): title
            case .press(nil): "press"
            case .wait(let seconds): "wait \(String(format: "%g", seconds))"
            case .quit: "quit"
            }
        }
    }

    static let standard = "start,wait 1,pause,wait 0.5,resume,wait 1,quit"

    let steps: [Step]

    /// Parses and checks a script: the button reads start, then pause and
    /// resume in turn, so "start,start" is an error here rather than a
    /// surprise later. A script without `quit` gets one at the end.
    init(_ text: String) throws(UsageError) {
        var steps: [Step] = []
        var title = "start"
        for (index, raw) in text.split(separator: ",").enumerated() {
            let words = raw.split(separator: " ")
            let place = "--script step \(index + 1) '\(raw.trimmingCharacters(in: .whitespaces))'"
            if steps.last == .quit { throw UsageError("\(place): nothing can follow quit") }
            switch (words.first.map(String.init), words.count) {
            case ("start", 1), ("pause", 1), ("resume", 1), ("press", 1):
                let name = String(words[0])
                if name != "press" && name != title {
                    throw UsageError("\(place): the button reads '\(title)' then")
                }
                steps.append(.press(expecting: name == "press" ? nil : name))
                title = title == "pause" ? "resume" : "pause"
            case ("wait", 2):
                guard let seconds = Double(words[1]), seconds.isFinite, (0...600).contains(seconds) else {
                    throw UsageError("\(place): wait takes seconds from 0 to 600")
                }
                steps.append(.wait(seconds))
            case ("quit", 1):
                steps.append(.quit)
            default:
                throw UsageError("\(place): steps are start, pause, resume, press, wait SECONDS, quit")
            }
        }
        if steps.last != .quit { steps.append(.quit) }
        self.steps = steps
    }
}
