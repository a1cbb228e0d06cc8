import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A Ctrl-C typed in a command's first milliseconds, before it listens for signals (issue 35: "after Ctrl-C …
/// at any phase"). `lessons` ignored the ending signals while libdispatch set up its sources, so one that came
/// then was dropped: `lessons play` went on to play the step, and the person's Ctrl-C did nothing (12 of 13 tries
/// with the signal sent as the command started, round 5).
@Suite struct EarlySignalTests {
    /// The command starts with SIGINT blocked and already waiting, which is what one typed before its handling is
    /// set up amounts to, without a race to win: kept, it ends the command (128 + 2, or SIGINT itself once the
    /// step's default action is back before `exec`); dropped, the step plays to its end (status 0, before).
    @Test func aControlCBeforeTheCommandListensStillEndsIt() async throws {
        let executable = Rig.productsDirectory.appendingPathComponent("lessons")
        let ended = try await Rig.onThread { () -> Ended in
            var interrupt = sigset_t()
            var previous = sigset_t()
            sigemptyset(&interrupt)
            sigaddset(&interrupt, SIGINT)
            // A child starts with the mask of the thread that starts it.
            pthread_sigmask(SIG_BLOCK, &interrupt, &previous)
            defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
            let process = Process()
            process.executableURL = executable
            process.arguments = ["run", "5"]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            do { try process.run() } catch { return Ended(problem: "\(error)") }
            kill(process.processIdentifier, SIGINT)
            process.waitUntilExit()
            return Ended(
                status: process.terminationStatus, bySignal: process.terminationReason == .uncaughtSignal)
        }.get()
        #expect(ended.bySignal ? ended.status == SIGINT : ended.status == 128 + SIGINT, "\(ended)")
    }

    struct Ended: Sendable {
        var status: Int32 = 0
        var bySignal = false
        var problem: String?

        func get() throws -> Ended {
            if let problem { throw TestFailure("cannot start lessons: \(problem)") }
            return self
        }
    }
}
