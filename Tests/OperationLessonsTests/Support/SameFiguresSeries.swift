import Foundation

/// How many times a test that proves "the same figures in every run" plays
/// its code. A plain `swift test` plays the short series, two runs, the second
/// with both cores busy: a figure that depends on the machine's load or on what
/// else runs in the process can already differ there. `.ci/run` sets
/// OPERATION_LESSONS_LONG_SERIES=1 for the long series issue 33 asks for: ten
/// runs, every other one loaded (docs/architecture.md, "Checking it").
enum SameFiguresSeries {
    static let isLong = ProcessInfo.processInfo.environment["OPERATION_LESSONS_LONG_SERIES"] == "1"

    /// The runs to play: `long` in the long series, `short` otherwise.
    static func runs(short: Int = 2, long: Int = 10) -> Int { isLong ? long : short }

    /// Whether run `index` (from 0) of a series is played with both cores busy: every other one, the second first.
    static func isLoaded(_ index: Int) -> Bool { index % 2 == 1 }
}
