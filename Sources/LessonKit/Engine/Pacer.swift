import SlowNetwork

/// Pacing for a person watching: how long the wall clock must wait before the
/// story shows an instant, at the run's speed in story seconds per wall second.
struct Pacer {
    let speed: Double
    /// The wall instant at which the story stood at `storyAnchor`.
    private var wallAnchor = ContinuousClock.now
    private var storyAnchor = StoryTime.zero

    /// `start`: where the story stands as the pace begins (a relaunch's new process starts mid-story).
    init(speed: Double, from start: StoryTime = .zero) {
        self.speed = speed
        storyAnchor = start
    }

    /// How long to wait to show `instant`, nil if not at all. A story that fell
    /// behind (a slow machine) is not played faster to catch up: the pace
    /// starts again from where it is.
    mutating func wait(until instant: StoryTime) -> StoryTime? {
        let target = wallAnchor + .nanoseconds(Int64(Double((instant - storyAnchor).nanoseconds) / speed))
        let now = ContinuousClock.now
        if now >= target {
            if now - target > .milliseconds(100) {
                wallAnchor = now
                storyAnchor = instant
            }
            return nil
        }
        let wait = target - now
        return StoryTime(nanoseconds: wait.components.seconds * 1_000_000_000 + wait.components.attoseconds / 1_000_000_000)
    }
}
