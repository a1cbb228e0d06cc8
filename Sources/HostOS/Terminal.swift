import Glibc

/// What a terminal says of itself.
public enum HostTerminal {
    /// Whether `descriptor` is a terminal (`isatty`).
    public static func isTerminal(_ descriptor: Int32) -> Bool {
        isatty(descriptor) == 1
    }

    /// The rows and columns of the terminal `descriptor` is (`TIOCGWINSZ`); nil for a pipe, a file, or a terminal
    /// that says it has no size.
    public static func size(of descriptor: Int32) -> (rows: Int, columns: Int)? {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0 else { return nil }
        return (Int(size.ws_row), Int(size.ws_col))
    }
}
