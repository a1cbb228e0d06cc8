import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The keyboard, one key at a time, for a step you play by hand (step 9's
/// button): the terminal in raw mode (no line editing, no echo, Ctrl-C
/// delivered as a key), and put back exactly as it was on every way out —
/// `restore()`, a normal `exit`, and SIGINT/SIGTERM/SIGHUP/SIGQUIT sent from
/// outside.
public final class RawTerminal: Sendable {
    /// The byte Ctrl-C sends once the terminal no longer turns it into SIGINT.
    public static let controlC: UInt8 = 3

    private init() {}

    /// Whether standard input is a keyboard (a terminal) at all.
    public static var inputIsTerminal: Bool { isatty(STDIN_FILENO) == 1 }

    /// Raw mode on standard input, or nil when standard input is not a
    /// terminal (a pipe, a file, a test): then there are no keys to read.
    public static func enter() -> RawTerminal? {
        guard inputIsTerminal else { return nil }
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else { return nil }
        savedTerminal.original = original
        savedTerminal.outputIsTerminal = isatty(STDOUT_FILENO) == 1
        savedTerminal.isSaved = true

        // Put it back however the process ends. A signal handler may only
        // call async-signal-safe functions: tcsetattr, write and _exit are.
        atexit { restoreSavedTerminal() }
        for signalNumber in [SIGINT, SIGTERM, SIGHUP, SIGQUIT] {
            signal(signalNumber) { received in
                restoreSavedTerminal(endingTheLine: true)
                _exit(128 + received)
            }
        }

        var raw = original
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { controls in
            controls[Int(VMIN)] = 1
            controls[Int(VTIME)] = 0
        }
        guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return nil }
        return RawTerminal()
    }

    /// Reads keys on a thread of their own and hands each byte to `onKey`
    /// (on that thread: hop to the main queue for anything UI). Ends at the
    /// end of input.
    public func readKeys(_ onKey: @escaping @Sendable (UInt8) -> Void) {
        let reader = Thread {
            var byte: UInt8 = 0
            while read(STDIN_FILENO, &byte, 1) == 1 {
                onKey(byte)
            }
        }
        reader.name = "keyboard"
        reader.start()
    }

    /// Line editing and echo back, the cursor shown, colours reset. Safe to call twice.
    public func restore() {
        restoreSavedTerminal()
    }

    /// Whether standard input is in the mode it was in before `enter()`.
    public static var isRestored: Bool {
        var now = termios()
        guard savedTerminal.isSaved, tcgetattr(STDIN_FILENO, &now) == 0 else { return true }
        return now.c_lflag == savedTerminal.original.c_lflag
    }
}

/// What the terminal looked like before raw mode. A plain global, because a
/// signal handler can reach nothing else; written once before any handler is
/// installed, only read afterwards.
private struct SavedTerminal {
    var original = termios()
    var outputIsTerminal = false
    var isSaved = false
}

nonisolated(unsafe) private var savedTerminal = SavedTerminal()

private func restoreSavedTerminal(endingTheLine: Bool = false) {
    guard savedTerminal.isSaved else { return }
    var original = savedTerminal.original
    _ = tcsetattr(STDIN_FILENO, TCSANOW, &original)
    guard savedTerminal.outputIsTerminal else { return }
    let reset: StaticString = "\u{1B}[0m\u{1B}[?25h"
    _ = write(STDOUT_FILENO, reset.utf8Start, reset.utf8CodeUnitCount)
    // Killed mid-screen: the shell's prompt should start on a line of its own.
    if endingTheLine { _ = write(STDOUT_FILENO, "\n", 1) }
}
