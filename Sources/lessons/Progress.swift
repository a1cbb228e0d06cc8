import Foundation
import HarnessSync
import LessonKit
import TableKit
import TerminalKit

/// A one-line progress report on stderr while children run. On a terminal
/// the line is rewritten in place, cut to its width (a line that wrapped could
/// not be wiped whole), with the seconds the current job has taken, counted
/// every second: a step that plays for a minute still shows it is alive.
/// Elsewhere, one line per job.
final class Progress: @unchecked Sendable {
    private let total: Int
    private let terminal = TerminalOutput.standardError
    private let lock = Locked(.seen)
    private var done = 0
    private var line = ""
    private var since = ContinuousClock.now
    private var ticker: (any DispatchSourceTimer)?

    init(total: Int) {
        self.total = total
    }

    func started(_ what: String) {
        lock.withLock {
            line = "[\(done + 1)/\(total)] \(what)"
            since = .now
            if terminal.drawsInPlace {
                show()
                if ticker == nil { ticker = startTicking() }
            } else {
                StandardStream.error.write(line + " …\n")
            }
        }
    }

    func finished() {
        lock.withLock { done += 1 }
    }

    /// Stops the count and wipes the line, so what comes next starts clean.
    func end() {
        lock.withLock {
            ticker?.cancel()
            ticker = nil
            if terminal.drawsInPlace { StandardStream.error.write("\r\u{1B}[K") }
        }
    }

    /// Wipes a progress line left on the terminal (the program is ending).
    static func wipeLine() {
        if TerminalOutput.standardError.drawsInPlace { StandardStream.error.write("\r\u{1B}[K") }
    }

    /// Under the lock: the line and its seconds, cut to one column less than
    /// the terminal (a line that reaches the last column can wrap on its own).
    private func show() {
        let seconds = Int((ContinuousClock.now - since).components.seconds)
        let text = "\(line) … \(seconds) s"
        let fitted = TerminalText.fitted(text, to: max(1, (terminal.columns ?? 80) - 1), padded: false)
        StandardStream.error.write("\r\u{1B}[K" + fitted)
    }

    private func startTicking() -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "progress"))
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            lock.withLock { if ticker != nil { show() } }
        }
        timer.resume()
        return timer
    }
}

/// Runs `count` jobs, at most `jobs` at a time, and returns their results in order.
func runConcurrently<T: Sendable>(count: Int, jobs: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
    let results = Locked([T?](repeating: nil, count: count), .seen)
    let next = Locked(0, .seen)
    DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, count))) { _ in
        while true {
            let index = next.withLock { value -> Int in
                defer { value += 1 }
                return value
            }
            guard index < count else { return }
            let result = body(index)
            results.withLock { $0[index] = result }
        }
    }
    return results.withLock { $0.compactMap { $0 } }
}
