import Glibc
import Synchronization

/// Ending signals handed from their handler to a thread that waits for them, through a pipe (the self-pipe way):
/// the handler notes the signal and writes its number, nothing else, and the waiting thread does the work.
///
/// libdispatch's signal sources lose a signal at one moment that matters: their handler passes it on to
/// libdispatch's own thread, and a program that replaces itself (`exec`) before that thread has read it takes
/// it away with the thread. `lessons play 5` sent SIGHUP as it started then played on, once in 60 tries.
/// Here the handler is in place before anything runs (until then a signal takes its default action), and what it
/// heard is known the moment it returns (`heard`).
public enum SignalRelay {
    /// From now on each of `numbers` is noted and written to the relay's pipe by its handler, which `next()`
    /// reads. Called once, at start-up.
    public static func install(_ numbers: [Int32]) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        // The programs this one starts have no use for it (`exec` closes it).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        relayWriteEnd = ends[1]
        relayReadEnd = ends[0]
        // A global's first use runs its initializer, which a signal handler must not: made now.
        _ = heardSignal.load(ordering: .relaxed)
        for number in numbers {
            HostSignals.handle(number) { received in
                heardSignal.store(received, ordering: .sequentiallyConsistent)
                var byte = UInt8(truncatingIfNeeded: received)
                _ = write(relayWriteEnd, &byte, 1)
            }
        }
        // One already waiting, from a parent that started this process with them blocked, is handled now.
        HostSignals.letThrough(numbers)
    }

    /// Waits for the next signal relayed, and returns its number; nil if the relay is not installed.
    public static func next() -> Int32? {
        guard relayReadEnd >= 0 else { return nil }
        var byte: UInt8 = 0
        while true {
            let count = read(relayReadEnd, &byte, 1)
            if count == 1 { return Int32(byte) }
            if count < 0 && errno == EINTR { continue }
            return nil
        }
    }

    /// The last signal a handler noted, if any came: set before the handler returns.
    public static var heard: Int32? {
        let number = heardSignal.load(ordering: .sequentiallyConsistent)
        return number == 0 ? nil : number
    }
}

/// Written once by `install`, before any handler can run; only read afterwards (by the handlers too).
nonisolated(unsafe) private var relayWriteEnd: Int32 = -1
nonisolated(unsafe) private var relayReadEnd: Int32 = -1
private let heardSignal = Atomic<Int32>(0)
