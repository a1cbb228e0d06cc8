import SlowNetwork
import TableKit

/// A drag or a fling under way: it moves the table a frame at a time, from
/// where the step found it to the step's row.
struct Gesture {
    let startOffset: Double
    /// Where it ends: its row, clamped to the end of the table.
    let targetOffset: Double

    /// Moves `table` to where a drag lasting `seconds` is after `elapsed`;
    /// true when it is over (`ending` is called just before the delegate hears).
    func drag(_ table: TableView, elapsed: Double, seconds: Double, ending: () -> Void) -> Bool {
        let progress = min(1, elapsed / max(seconds, 0.001))
        table.setContentOffset(startOffset + (targetOffset - startOffset) * progress)
        if progress >= 1 {
            ending()
            table.endDragging(willDecelerate: false)
        }
        return progress >= 1
    }

    /// The same for a peek: out to the target in the first half of the time, back in the second.
    func peek(_ table: TableView, elapsed: Double, seconds: Double, ending: () -> Void) -> Bool {
        let progress = min(1, elapsed / max(seconds, 0.001))
        let away = 1 - abs(1 - 2 * progress)
        table.setContentOffset(startOffset + (targetOffset - startOffset) * away)
        if progress >= 1 {
            ending()
            table.endDragging(willDecelerate: false)
        }
        return progress >= 1
    }

    /// The same for a fling: the finger covers 40 % of the way in the first
    /// 25 % of the time, then the content glides, slowing down, the rest of the way
    /// (`gliding` is called as the finger leaves, before the delegate hears).
    func fling(
        _ table: TableView, elapsed: Double, seconds: Double, gliding: () -> Void, ending: () -> Void
    ) -> Bool {
        let progress = min(1, elapsed / max(seconds, 0.001))
        let distance = targetOffset - startOffset
        if progress < 0.25 {
            table.setContentOffset(startOffset + distance * 0.4 * progress / 0.25)
            return false
        }
        if table.isDragging {
            gliding()
            table.endDragging(willDecelerate: true)
        }
        let glide = (progress - 0.25) / 0.75
        table.setContentOffset(startOffset + distance * (0.4 + 0.6 * (1 - (1 - glide) * (1 - glide))))
        if progress >= 1 {
            ending()
            table.endDecelerating()
        }
        return progress >= 1
    }
}

/// When the user was scrolling: from the moment the finger touched down until
/// the table came to rest, and when the finger left it if it glided on, in
/// story milliseconds.
struct ScrollSpans: Codable {
    private var start: StoryTime?
    private var glide: StoryTime?
    /// Each scroll so far; a drag's glide begins where it ends.
    private(set) var withGlides: [IconRequests.Scroll] = []

    /// A relaunch carries the scrolls so far; none is under way at one (it is a step of its own).
    private enum CodingKeys: CodingKey { case withGlides }

    mutating func began(at instant: StoryTime) { start = instant }

    mutating func glided(at instant: StoryTime) { glide = instant }

    mutating func ended(at instant: StoryTime) {
        guard let start else { return }
        withGlides.append(
            IconRequests.Scroll(
                startMs: start.milliseconds, glideMs: (glide ?? instant).milliseconds, endMs: instant.milliseconds))
        self.start = nil
        glide = nil
    }

    /// How many of `starts` (request start times) fell while the user was scrolling.
    func count(of starts: [Double]) -> Int {
        starts.filter { start in withGlides.contains { start > $0.startMs && start < $0.endMs } }.count
    }
}
