import Glibc

/// A terminal's modes (`termios`): line editing, echo, which keys send signals. Read, changed and put back whole.
public struct TerminalModes: Sendable {
    var modes: termios

    /// The modes of the terminal `descriptor` is (`tcgetattr`), nil if it is no terminal.
    public static func of(_ descriptor: Int32) -> TerminalModes? {
        var modes = termios()
        return tcgetattr(descriptor, &modes) == 0 ? TerminalModes(modes: modes) : nil
    }

    /// Makes them the modes of `descriptor`'s terminal at once (`tcsetattr`); false if it cannot.
    @discardableResult
    public func apply(to descriptor: Int32) -> Bool {
        var modes = modes
        return tcsetattr(descriptor, TCSANOW, &modes) == 0
    }

    /// The same modes with line editing and echo off, every key handed over as it is typed; `keepingInterrupt`:
    /// Ctrl-C (and Ctrl-Z, Ctrl-\) still send their signals, otherwise they arrive as keys.
    public func raw(keepingInterrupt: Bool) -> TerminalModes {
        var raw = modes
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO | (keepingInterrupt ? 0 : ISIG))
        withUnsafeMutableBytes(of: &raw.c_cc) { controls in
            controls[Int(VMIN)] = 1
            controls[Int(VTIME)] = 0
        }
        return TerminalModes(modes: raw)
    }

    /// Whether line editing, echo and the signal keys are as in `other` (the "local modes" a program changes).
    public func hasLocalModes(of other: TerminalModes) -> Bool {
        modes.c_lflag == other.modes.c_lflag
    }

    /// Their bytes, for a process that replaces itself to hand on (`init(bytes:)` reads them back).
    public var bytes: [UInt8] {
        withUnsafeBytes(of: modes) { Array($0) }
    }

    /// Modes from `bytes`, as `bytes` gave them; nil if they are not as many as modes take.
    public init?(bytes: [UInt8]) {
        guard bytes.count == MemoryLayout<termios>.size else { return nil }
        var modes = termios()
        withUnsafeMutableBytes(of: &modes) { $0.copyBytes(from: bytes) }
        self.modes = modes
    }

    init(modes: termios) {
        self.modes = modes
    }
}

extension HostTerminal {
    /// Whether this process may set the modes of `descriptor`'s terminal without being stopped: its group is the
    /// terminal's foreground group, or `descriptor` is no controlling terminal at all (`tcgetpgrp`). From the
    /// background, setting them stops the process (SIGTTOU).
    public static func isInForeground(_ descriptor: Int32) -> Bool {
        let foreground = tcgetpgrp(descriptor)
        return foreground == -1 || foreground == getpgrp()
    }
}
