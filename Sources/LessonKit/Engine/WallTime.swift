import SlowNetwork

/// A run's dealings with the machine's clocks, kept apart from the story's
/// time: the pace for a person watching, the hang guard (processor time, and
/// wall time with every thread blocked), and how long the run has taken on
/// this machine (`runWallMs`). No story figure is read from here.
struct WallTime {
    /// Nil when the run plays as fast as the machine allows.
    var pacer: Pacer?
    var hangGuard: HangGuard
    private let start = ContinuousClock.now

    init(pacedAt speed: Double?, hangLimit: Duration, storyStart: StoryTime = .zero) {
        pacer = speed.map { Pacer(speed: $0, from: storyStart) }
        hangGuard = HangGuard(limit: hangLimit)
    }

    var sinceStart: Duration { ContinuousClock.now - start }

    /// How long to wait to show `instant` at the run's pace; nil when the run
    /// is not paced or it is time already.
    mutating func paceWait(until instant: StoryTime) -> StoryTime? { pacer?.wait(until: instant) }
}
