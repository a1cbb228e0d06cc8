import TableKit

/// Runs work alone among the scenarios of this process, with fresh
/// instruments installed: the guarantee `ScenarioRunner` gives a table run
/// (nothing else uses the main queue or the worker threads meanwhile, and the
/// images and main-queue violations counted are this work's). For steps that
/// play a story of their own and for tests that drive operation queues or
/// touch UI themselves.
public enum ExclusiveRun {
    public static func run<Result, Failure>(
        _ body: (Instruments) async throws(Failure) -> Result
    ) async throws(Failure) -> Result {
        try await ScenarioGate.asHolder { () async throws(Failure) -> Result in
            await ScenarioGate.shared.enter()
            let instruments = Instruments()
            Instruments.current = instruments
            defer {
                Instruments.current = nil
                ScenarioGate.shared.leave()
            }
            return try await body(instruments)
        }
    }
}
