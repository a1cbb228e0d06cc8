import Foundation
import HarnessSync
import TerminalKit

/// A one-line progress report on stderr while children run. On a terminal
/// the line is rewritten in place, cut to its width (a line that wrapped could
/// not be wiped whole), with the seconds the current job has taken, counted
/// every second: a step that plays for a minute still shows it is alive.
/// Elsewhere, one line per job.
public final class ProgressLine: @unchecked Sendable {
    private let total: Int
    private let terminal: TerminalOutput
    private let write: @Sendable (String) -> Void
    private let now: @Sendable () -> ContinuousClock.Instant
    private let lock = Locked(.seen)
    private var done = 0
    private var line = ""
    private var since: ContinuousClock.Instant
    private var ticker: (any DispatchSourceTimer)?

    public convenience init(total: Int) {
        self.init(total: total, terminal: .standardError, write: { StandardStream.error.write($0) }, now: { .now })
    }

    /// A progress report written with `write`, for `terminal`, on the clock `now` (a test's, to count seconds that
    /// no real job takes for sure).
    init(
        total: Int, terminal: TerminalOutput, write: @escaping @Sendable (String) -> Void,
        now: @escaping @Sendable () -> ContinuousClock.Instant
    ) {
        self.total = total
        self.terminal = terminal
        self.write = write
        self.now = now
        since = now()
    }

    public func started(_ what: String) {
        lock.withLock {
            line = "[\(done + 1)/\(total)] \(what)"
            since = now()
            if terminal.drawsInPlace {
                show()
                if ticker == nil { ticker = startTicking() }
            } else {
                write(line + " …\n")
            }
        }
    }

    public func finished() {
        lock.withLock { done += 1 }
    }

    /// Stops the count and wipes the line, so what comes next starts clean.
    public func end() {
        lock.withLock {
            ticker?.cancel()
            ticker = nil
            if terminal.drawsInPlace { write("\r\u{1B}[K") }
        }
    }

    /// Wipes a progress line left on the terminal (the program is ending).
    public static func wipeLine() {
        if TerminalOutput.standardError.drawsInPlace { StandardStream.error.write("\r\u{1B}[K") }
    }

    /// Under the lock: the line and its seconds, cut to one column less than
    /// the terminal (a line that reaches the last column can wrap on its own).
    private func show() {
        let seconds = Int((now() - since).components.seconds)
        let text = "\(line) … \(seconds) s"
        let fitted = TerminalText.fitted(text, to: max(1, (terminal.columns ?? 80) - 1), padded: false)
        write("\r\u{1B}[K" + fitted)
    }

    private func startTicking() -> any DispatchSourceTimer {
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "progress"))
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
        return timer
    }

    /// A second has passed: the line again, with its count (the ticker's turn).
    func tick() {
        lock.withLock { if ticker != nil { show() } }
    }
}

