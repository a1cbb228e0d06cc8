import SlowNetwork
import TableKit

/// Turns the frames the main queue committed into what the user saw.
///
/// The display refreshes 60 times a story second whatever the app does. Each
/// commit stays on screen until the next one, so a commit followed by a 500 ms
/// gap was seen for 30 refreshes, 29 of them dropped frames. Counting by
/// refreshes rather than by commits is what makes a frozen screen count.
/// Times are story milliseconds; frames fall on whole nanoseconds, so a gap of
/// one frame is 1000/60 ms give or take a millionth.
/// Each row is judged by `RowJudge`.
// More than 12 stored properties: the frame figures of the report, each counted as the frames are committed.
final class FrameRecorder {
    private static let frameMs = FrameClock.frameMs
    private let judge: RowJudge
    /// The last commit, judged. Only the verdicts are kept: holding the
    /// snapshot would keep its images alive and blur the memory account.
    private var last: (ms: Double, rows: [Int], states: [RowState])?
    /// When the app was launched: "time until all visible" counts from here.
    private var launchMs = 0.0

    /// What the frames counted so far, as the report has them: the refreshes, the
    /// dropped ones and what they showed, the longest stall, when every row first
    /// showed its own icon. The rest of the report's screen figures are the end's.
    private(set) var figures = FrameFigures()
    /// Each row that showed another row's icon, and whose (nil: no row's), with the refreshes it did.
    private(set) var othersIconRefreshes: [OthersIcon.Pair: Int] = [:]
    /// Main-queue gaps longer than two frames, for the timeline.
    private(set) var stalls: [(startMs: Double, endMs: Double)] = []
    /// What the screen showed, as spans of equal verdicts, for the timeline.
    private(set) var screen: [Timeline.ScreenSpan] = []

    init(iconURLs: [String]) { judge = RowJudge(iconURLs: iconURLs) }

    /// The frames so far, as a relaunch carries them into the app's next
    /// process: the display goes on refreshing across it.
    struct Carried: Codable {
        var lastMs: Double?
        var lastRows: [Int]
        var lastStates: [RowState]
        var launchMs: Double
        var figures: FrameFigures
        var othersIconRefreshes: [OthersIcon.Pair: Int]
        var stallStartsMs, stallEndsMs: [Double]
        var screen: [Timeline.ScreenSpan]
    }

    var carried: Carried {
        Carried(
            lastMs: last?.ms, lastRows: last?.rows ?? [], lastStates: last?.states ?? [], launchMs: launchMs,
            figures: figures, othersIconRefreshes: othersIconRefreshes, stallStartsMs: stalls.map(\.startMs),
            stallEndsMs: stalls.map(\.endMs), screen: screen)
    }

    /// Goes on from the frames an earlier process of the app recorded.
    func carryOn(from carried: Carried) {
        last = carried.lastMs.map { ($0, carried.lastRows, carried.lastStates) }
        launchMs = carried.launchMs
        figures = carried.figures
        othersIconRefreshes = carried.othersIconRefreshes
        stalls = Array(zip(carried.stallStartsMs, carried.stallEndsMs))
        screen = carried.screen
    }

    func state(of visible: VisibleRow) -> RowState { judge.state(of: visible) }

    /// The app was launched at `launchMs` and showed nothing until its first
    /// commit: those refreshes were blank, and the main queue was stalled.
    func launched(atMs launchMs: Double, firstCommitMs: Double, snapshot: ScreenSnapshot) {
        self.launchMs = launchMs
        let blank = Int(frames(in: firstCommitMs - launchMs).rounded(.down))
        figures.frames += blank
        figures.droppedFrames += blank
        figures.blankFrames += blank
        recordStall(from: launchMs, to: firstCommitMs)
        extendScreen(from: launchMs, to: firstCommitMs, states: snapshot.rows.map { _ in .blank })
        last = judged(snapshot, atMs: firstCommitMs)
        noteAllVisible(atMs: firstCommitMs)
    }

    func commit(atMs ms: Double, snapshot: ScreenSnapshot) {
        if let previous = last {
            let refreshes = max(1, Int(frames(in: ms - previous.ms).rounded()))
            count(previous.states, of: previous.rows, refreshes: refreshes)
            figures.droppedFrames += refreshes - 1
            recordStall(from: previous.ms, to: ms)
            extendScreen(from: previous.ms, to: ms, states: previous.states)
        }
        last = judged(snapshot, atMs: ms)
        noteAllVisible(atMs: ms)
    }

    /// The commit's rows and their verdicts, in one pass over the snapshot: it runs every frame.
    private func judged(_ snapshot: ScreenSnapshot, atMs ms: Double) -> (ms: Double, rows: [Int], states: [RowState]) {
        var rows: [Int] = []
        var states: [RowState] = []
        rows.reserveCapacity(snapshot.rows.count)
        states.reserveCapacity(snapshot.rows.count)
        for visible in snapshot.rows {
            rows.append(visible.row)
            states.append(judge.state(of: visible))
        }
        return (ms, rows, states)
    }

    /// The last commit was on screen for one refresh.
    func finish() {
        if let last {
            count(last.states, of: last.rows, refreshes: 1)
            extendScreen(from: last.ms, to: last.ms + Self.frameMs, states: last.states)
        }
        last = nil
    }

    func allVisibleShowOwnIcon(_ snapshot: ScreenSnapshot) -> Bool {
        !snapshot.rows.isEmpty && snapshot.rows.allSatisfy { state(of: $0) == .own }
    }

    /// One pass over the verdicts (`rows` holds each one's row): it runs for every commit.
    private func count(_ states: [RowState], of rows: [Int], refreshes: Int) {
        figures.frames += refreshes
        var blank = false
        var placeholder = false
        var wrong = false
        for index in states.indices {
            switch states[index] {
            case .own: break
            case .blank: blank = true
            case .placeholder: placeholder = true
            case .wrong(let other):
                wrong = true
                othersIconRefreshes[OthersIcon.Pair(row: rows[index], showed: other), default: 0] += refreshes
            }
        }
        if blank { figures.blankFrames += refreshes }
        if placeholder { figures.placeholderFrames += refreshes }
        if wrong { figures.wrongImageFrames += refreshes }
    }

    /// Each row that showed another row's icon, by row, with whether it still did on `endScreen`.
    func othersIcons(endScreen: ScreenSnapshot) -> [OthersIcon] {
        let atEnd = Set(
            endScreen.rows.compactMap { row in
                if case .wrong(let other) = state(of: row) { OthersIcon.Pair(row: row.row, showed: other) } else { nil }
            })
        return othersIconRefreshes.map { pair, frames in
            OthersIcon(row: pair.row, showed: pair.showed, frames: frames, atEnd: atEnd.contains(pair))
        }.sorted { ($0.row, $0.showed ?? -1) < ($1.row, $1.showed ?? -1) }
    }

    /// How many frames fit in a stretch, as a whole number when it is one.
    private func frames(in ms: Double) -> Double {
        let frames = ms / Self.frameMs
        return abs(frames - frames.rounded()) < 1e-6 ? frames.rounded() : frames
    }

    private func recordStall(from start: Double, to end: Double) {
        let stall = ((end - start - Self.frameMs) * 1e6).rounded() / 1e6
        if stall > 0.001 { figures.maxMainStallMs = max(figures.maxMainStallMs, stall) }
        if frames(in: end - start) > 2 { stalls.append((start, end)) }
    }

    private func noteAllVisible(atMs ms: Double) {
        guard figures.timeToAllVisibleMs == nil, let states = last?.states, !states.isEmpty else { return }
        if states.allSatisfy({ $0 == .own }) { figures.timeToAllVisibleMs = ms - launchMs }
    }

    private func extendScreen(from start: Double, to end: Double, states: [RowState]) {
        var span = Timeline.ScreenSpan(startMs: start, endMs: end)
        for state in states {
            switch state {
            case .own: span.own += 1
            case .placeholder: span.placeholder += 1
            case .blank: span.blank += 1
            case .wrong: span.wrong += 1
            }
        }
        if let previous = screen.last, previous.sameVerdicts(as: span), previous.endMs >= start {
            screen[screen.count - 1].endMs = end
        } else {
            screen.append(span)
        }
    }
}
