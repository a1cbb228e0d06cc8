import Glibc

/// A C function that handles a signal: it runs on whichever thread the signal interrupts, in the middle of anything
/// (a lock held, `malloc` half-way), so it may only call `SignalSafe`'s functions, on memory prepared beforehand.
public typealias SignalHandler = @convention(c) (Int32) -> Void

extension HostSignals {
    /// From now on `number` runs `handler` (`signal`, whose Linux handlers stay installed and restart calls).
    public static func handle(_ number: Int32, with handler: SignalHandler) {
        signal(number, handler)
    }
}

/// What a signal handler may call (and `prepare`, to make what it reads beforehand): each is async-signal-safe (signal-safety(7)) and reads only what is handed to it,
/// prepared before the signal came (C strings, saved modes): no allocation, no lock, no Swift `String`.
public enum SignalSafe {
    /// `text` as a C string a handler can read, made now (`strdup`), never in a handler; `discard` frees it.
    public static func prepare(_ text: String) -> UnsafeMutablePointer<CChar> {
        strdup(text)
    }

    /// Frees a C string `prepare` made, never in a handler (`free`).
    public static func discard(_ prepared: UnsafeMutablePointer<CChar>?) {
        free(prepared)
    }

    /// Puts `modes` back on `descriptor` at once (`tcsetattr`).
    public static func setModes(_ modes: TerminalModes, on descriptor: Int32) {
        modes.apply(to: descriptor)
    }

    /// Whether `descriptor` is a terminal (`isatty`).
    public static func isTerminal(_ descriptor: Int32) -> Bool {
        HostTerminal.isTerminal(descriptor)
    }

    /// Writes the C string `text` to `descriptor`, once (`write`); what does not fit is not waited for.
    public static func write(_ text: UnsafePointer<CChar>, to descriptor: Int32) {
        _ = Glibc.write(descriptor, text, strlen(text))
    }

    /// Removes the file whose path is the C string `path` (`unlink`).
    public static func remove(_ path: UnsafePointer<CChar>) {
        _ = unlink(path)
    }

    /// Ends the process at once with `status` (`_exit`): no `atexit` handler runs, nothing is flushed.
    public static func exit(_ status: Int32) -> Never {
        _exit(status)
    }
}
