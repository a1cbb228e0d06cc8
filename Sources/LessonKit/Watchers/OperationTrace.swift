import Foundation
import HarnessSync
import SlowNetwork
import TableKit

/// Who ran what, when: each piece of work an operation does, recorded on the
/// lane of the thread that ran it ("main queue", or "worker N" numbered in the
/// order the threads first showed up), plus labelled moments.
///
/// For the steps about `Operation` itself (8 and 9), where the question is
/// "which thread, in which order, how many at once?" rather than what a table
/// showed. Thread-safe; one trace per run.
///
/// Its lock is seen by Thread Sanitizer (`Locked`): no race check plays these
/// steps, and the TSan leg checks the trace's own bookkeeping.
public final class OperationTrace: @unchecked Sendable {
    /// The run's story clock: every time on the trace is its.
    public let clock: SleepClock
    private let lock = Locked(.seen)
    private var state = State()
    private let lanes = ThreadLanes()

    private struct State {
        var spans: [Timeline.Span] = []
        var events: [Timeline.Event] = []
    }

    public init(clock: SleepClock) {
        self.clock = clock
    }

    private func withState<T>(_ body: (inout State) -> T) -> T {
        lock.withLock { body(&state) }
    }

    /// Story milliseconds since the run began.
    public func now() -> Double {
        clock.milliseconds
    }

    /// The lane the calling code runs on: "main queue" (asked of the queue,
    /// not of `Thread.isMainThread`, which lies on Linux under an async main)
    /// or "worker N" for the N-th other thread this trace has seen.
    public func currentLane() -> String {
        lanes.current(onMainQueue: MainQueue.isCurrent)
    }

    /// Runs `body` and records it as a span named `name` (of `kind`, when the
    /// name alone does not say it) on the caller's lane.
    @discardableResult
    public func span<T>(_ name: String, kind: String? = nil, _ body: () throws -> T) rethrows -> T {
        let lane = currentLane()
        let start = now()
        defer { record(Timeline.Span(name: name, kind: kind, lane: lane, startMs: start, endMs: now())) }
        return try body()
    }

    public func record(_ span: Timeline.Span) {
        withState { $0.spans.append(span) }
    }

    /// A labelled moment (a button press, "cycle cancelled"…), drawn as a
    /// vertical line on the timeline.
    public func event(_ label: String) {
        let ms = now()
        withState { $0.events.append(Timeline.Event(ms: ms, label: label)) }
    }

    /// Every span so far, in the order they ended.
    public var spans: [Timeline.Span] { withState { $0.spans } }

    public var events: [Timeline.Event] { withState { $0.events } }

    /// The spans that ended after `ms` (the work of one part of a run).
    public func spans(since ms: Double) -> [Timeline.Span] {
        spans.filter { $0.endMs > ms }
    }

    /// The picture of the whole trace, for `TimelineSVG.render`.
    public func timeline(title: String) -> Timeline {
        var timeline = Timeline()
        timeline.title = title
        timeline.durationMs = now()
        timeline.timeAxis = "story time (s) since the run began"
        timeline.spans = spans
        timeline.events = events
        return timeline
    }

    /// The most spans that were running at the same moment.
    public static func maxOverlap(_ spans: [Timeline.Span]) -> Int {
        // Ends sort before starts at the same instant: touching is not overlapping.
        let edges = spans.flatMap { [($0.startMs, 1), ($0.endMs, -1)] }.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
        var running = 0
        var most = 0
        for edge in edges {
            running += edge.1
            most = max(most, running)
        }
        return most
    }

    /// The spans drawn as text, one line per lane, `columns` wide at most
    /// (the lane's name included), for a terminal:
    ///
    ///     main queue |                              [install]
    ///     worker 1   |[download===]
    ///     worker 2   |             [unzip==========]
    ///
    /// Time is scaled to the width, never wrapped: a span that ends at the
    /// last instant ends in the last column. Every span gets at least its
    /// brackets, so a 1 ms span is still seen.
    public static func laneChart(_ spans: [Timeline.Span], columns: Int = 80) -> String {
        guard let first = spans.map(\.startMs).min(), let last = spans.map(\.endMs).max() else { return "" }
        let lanes = Array(Set(spans.map(\.lane))).sorted { laneOrder($0) < laneOrder($1) }
        let nameWidth = max(10, lanes.map(\.count).max() ?? 0)
        let width = max(columns - nameWidth - 2, 8)
        let scale = Double(width - 1) / max(last - first, 1)
        var lines: [String] = []
        for lane in lanes {
            var row = Array(repeating: Character(" "), count: width)
            for span in spans where span.lane == lane {
                // Room for both brackets, even for a span at the very end.
                let start = min(Int(((span.startMs - first) * scale).rounded()), width - 2)
                let end = min(max(start + 1, Int(((span.endMs - first) * scale).rounded())), width - 1)
                let inner = end - start - 1
                let label = String(span.name.prefix(inner))
                let body = label + String(repeating: "=", count: inner - label.count)
                for (offset, character) in ("[" + body + "]").enumerated() { row[start + offset] = character }
            }
            let name = lane + String(repeating: " ", count: nameWidth - lane.count)
            lines.append(
                name + " |" + String(row).replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression))
        }
        let axis = String(format: "%.0f ms", last - first)
        lines.append(
            String(repeating: " ", count: nameWidth) + " 0"
                + String(repeating: " ", count: max(1, width - axis.count)) + axis)
        return lines.joined(separator: "\n")
    }

    /// "main queue" first, then the workers by number.
    private static func laneOrder(_ lane: String) -> Int {
        lane == "main queue" ? 0 : (Int(lane.split(separator: " ").last ?? "") ?? 0) + 1
    }
}
