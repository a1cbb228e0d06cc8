import Foundation
import HostOS

/// The keyboard, one key at a time, for a step you play by hand (step 9's
/// button): the terminal in raw mode (no line editing, no echo, Ctrl-C
/// delivered as a key), and put back exactly as it was on every way out —
/// `restore()`, a normal `exit`, and SIGINT/SIGTERM/SIGHUP/SIGQUIT sent from
/// outside (`ExitCleanup`). Where Ctrl-Z still stops the program, it is put
/// back for the shell while stopped, and raw again after `fg`.
public final class RawTerminal: Sendable {
    /// The byte Ctrl-C sends once the terminal no longer turns it into SIGINT.
    public static let controlC: UInt8 = 3

    private init() {}

    /// Whether standard input is a keyboard (a terminal) at all.
    public static var inputIsTerminal: Bool { HostTerminal.isTerminal(HostDescriptor.standardInput) }

    /// Raw mode on standard input, or nil when standard input is not a
    /// terminal (a pipe, a file, a test): then there are no keys to read.
    /// `keepingInterrupt`: Ctrl-C still sends SIGINT, for a program whose
    /// children it must end too.
    public static func enter(keepingInterrupt: Bool = false) -> RawTerminal? {
        guard inputIsTerminal, var original = TerminalModes.of(HostDescriptor.standardInput) else { return nil }
        // A relaunch's new process finds the terminal raw already: the modes to put back are those the first found.
        if let handedOn = modesHandedOn() { original = handedOn }
        savedTerminal.original = original
        savedTerminal.outputIsTerminal = HostTerminal.isTerminal(HostDescriptor.standardOutput)

        // Put it back however the process ends; killed mid-screen, the
        // shell's prompt should start on a line of its own.
        HostProcess.atExit { restoreForGood() }
        ExitCleanup.restoreModes(original)
        if savedTerminal.outputIsTerminal { ExitCleanup.restoreScreen(with: resetSequence + "\n") }
        ExitCleanup.install()

        let raw = original.raw(keepingInterrupt: keepingInterrupt)
        guard raw.apply(to: HostDescriptor.standardInput) else { return nil }
        // A signal that ends the program came meanwhile, and may have found no modes to put back yet.
        if ExitCleanup.hasBegun {
            restoreSavedTerminal()
            return nil
        }
        if keepingInterrupt { keepRawAcrossStops(raw) }
        return RawTerminal()
    }

    /// Ctrl-Z sends SIGTSTP where Ctrl-C stays a signal: the terminal goes back
    /// as it was, for the shell, before the program stops, and raw again once
    /// it is continued in the foreground (`fg`). The shell puts back its own
    /// modes when a job stops, not the job's when it continues: keys then
    /// needed Enter, and were echoed.
    private static func keepRawAcrossStops(_ raw: TerminalModes) {
        // One handler owns SIGTSTP (it stops the children too): the terminal is put back before it, raw after.
        JobControl.aroundStops(before: { restoreSavedTerminal() }) {
            // Only in the foreground: setting a terminal's modes from the background stops the program (SIGTTOU).
            guard HostTerminal.isInForeground(HostDescriptor.standardInput) else { return }
            raw.apply(to: HostDescriptor.standardInput)
        }
    }

    /// Reads keys on a thread of their own and hands each byte to `onKey`
    /// (on that thread: hop to the main queue for anything UI). Ends at the
    /// end of input.
    public func readKeys(_ onKey: @escaping @Sendable (UInt8) -> Void) {
        let reader = Thread {
            while let byte = HostDescriptor.readByte(from: HostDescriptor.standardInput) {
                onKey(byte)
            }
        }
        reader.name = "keyboard"
        reader.start()
    }

    /// Line editing and echo back, the cursor shown, colours reset, for good (a continue after Ctrl-Z leaves it
    /// so). Safe to call twice.
    public func restore() {
        restoreForGood()
    }

    /// Where a process that replaces itself (`execv`, a relaunch) hands its
    /// saved modes to the next, which puts them back when it ends.
    static let savedModesVariable = "OPERATIONLESSONS_TERMINAL_MODES"

    /// Hands the modes saved by `enter()`, if any, to the process this one is about to become.
    static func handSavedModesOn() {
        guard let original = savedTerminal.original else { return }
        HostProcess.setEnvironment(savedModesVariable, to: original.bytes.map { String(format: "%02x", $0) }.joined())
    }

    /// The modes an earlier process handed on, read once; nil if none did, or they do not read as modes.
    private static func modesHandedOn() -> TerminalModes? {
        guard let text = ProcessInfo.processInfo.environment[savedModesVariable] else { return nil }
        HostProcess.removeFromEnvironment(savedModesVariable)
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for offset in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[offset..<offset + 2], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        return TerminalModes(bytes: bytes)
    }

    /// Whether standard input is in the mode it was in before `enter()`.
    public static var isRestored: Bool {
        guard let original = savedTerminal.original, let now = TerminalModes.of(HostDescriptor.standardInput) else {
            return true
        }
        return now.hasLocalModes(of: original)
    }
}

/// What the terminal looked like before raw mode. A plain global, because the
/// `atexit` handler (a C function) can reach nothing else; written once in
/// `enter()`, only read afterwards.
private struct SavedTerminal {
    /// Nil until `enter()` saved them.
    var original: TerminalModes?
    var outputIsTerminal = false
}

nonisolated(unsafe) private var savedTerminal = SavedTerminal()

/// Colours back to normal, the cursor shown.
private let resetSequence = "\u{1B}[0m\u{1B}[?25h"

/// The terminal put back on the way out: no stop or continue heard from now on makes it raw again.
private func restoreForGood() {
    JobControl.leaveTheTerminalAlone()
    restoreSavedTerminal()
}

private func restoreSavedTerminal() {
    guard let original = savedTerminal.original else { return }
    original.apply(to: HostDescriptor.standardInput)
    guard savedTerminal.outputIsTerminal else { return }
    StandardStream.output.write(resetSequence)
}
