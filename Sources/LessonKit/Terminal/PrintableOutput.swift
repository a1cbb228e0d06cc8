import Foundation
import HarnessSync
import TerminalKit

/// A child's output passed on to one of this program's streams as it comes,
/// every character that is not printable shown escaped (`TerminalText`), line
/// breaks kept. A learner's code may print an escape sequence (the alternate
/// screen, a hidden cursor, a window title, a background colour): passed on
/// as it was, it changed the terminal the verdict is then read on, and left
/// it so after the check.
public final class PrintableOutput: @unchecked Sendable {
    private let stream: StandardStream
    private let lock = Locked(.seen)
    private var decoder = ScreenDecoder()

    public init(to stream: StandardStream = .output) {
        self.stream = stream
    }

    /// The next piece, written at once; a character it cuts short waits for the rest.
    public func write(_ data: Data) {
        lock.withLock {
            // Printable ASCII and line breaks, nearly all of any output, go as they are: 20 MB in a second.
            if data.allSatisfy({ (0x20...0x7E).contains($0) || $0 == 0x0A }), decoder.isEmpty {
                stream.write(data)
            } else {
                stream.write(TerminalText.printableLines(decoder.text(of: data)))
            }
        }
    }

    /// Once the child has ended: a character it cut short, shown as a replacement character.
    public func finish() {
        lock.withLock { stream.write(TerminalText.printableLines(decoder.rest())) }
    }
}
