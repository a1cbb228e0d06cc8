import Foundation

/// The fastest a loader could possibly fill the first screen: every visible
/// row's download, each taking exactly the time the network will take for it
/// (known in advance from the seed, slow rows included), packed onto as many
/// lanes as the step's queue allows, with no overhead at all. With equal
/// downloads that is ceil(visible / maxConcurrentOperationCount) × latency.
///
/// A step's `timeToAllVisibleMs` divided by this is how far it is from the
/// physical limit (docs/performance.md).
public enum PhysicalLimit {
    /// The time to finish `durations` on `lanes` lanes, longest first, each
    /// onto the lane that frees up first (for equal durations this is exact).
    public static func makespan(_ durations: [Double], lanes: Int) -> Double {
        guard !durations.isEmpty else { return 0 }
        var ends = [Double](repeating: 0, count: max(1, min(lanes, durations.count)))
        for duration in durations.sorted(by: >) {
            let lane = ends.indices.min { ends[$0] < ends[$1] } ?? 0
            ends[lane] += duration
        }
        return ends.max() ?? 0
    }
}
