import SlowNetwork
import TableKit

/// The frames a run plays: which comes next (frame n is shown at n/60 story
/// seconds), what each screen committed to the recorder shows, and what the
/// frame handler cost this machine.
struct FrameTrack {
    let recorder: FrameRecorder
    /// The next frame to play, by number.
    private(set) var next = 0
    private(set) var hasCommitted = false
    var work = FrameWork()

    init(iconURLs: [String]) { recorder = FrameRecorder(iconURLs: iconURLs) }

    /// Goes on from the frames an earlier process of the app recorded, the
    /// first launch's commit among them.
    mutating func carryOn(from carried: FrameRecorder.Carried) {
        recorder.carryOn(from: carried)
        hasCommitted = true
    }

    /// When the next frame is due.
    var nextTime: StoryTime { Self.time(ofFrame: next) }

    /// Commits what the screen shows at `now` (the first commit ends the
    /// launch), and makes the first frame after it the next.
    mutating func commit(_ snapshot: ScreenSnapshot, at now: StoryTime) {
        if hasCommitted {
            recorder.commit(atMs: now.milliseconds, snapshot: snapshot)
        } else {
            recorder.launched(atMs: 0, firstCommitMs: now.milliseconds, snapshot: snapshot)
            hasCommitted = true
        }
        next = Self.index(after: now)
    }

    /// Frame `n` is shown at n/60 story seconds.
    static func time(ofFrame index: Int) -> StoryTime {
        StoryTime(nanoseconds: Int64(index) * 1_000_000_000 / Int64(FrameClock.framesPerSecond))
    }

    /// The first frame after `instant`.
    static func index(after instant: StoryTime) -> Int {
        var index = Int(instant.nanoseconds * Int64(FrameClock.framesPerSecond) / 1_000_000_000)
        while time(ofFrame: index) <= instant { index += 1 }
        return index
    }
}
