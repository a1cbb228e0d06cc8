/// The run's one wall-time limit: how long the app may stay busy without the
/// story moving on before the run gives up and says what was busy.
struct HangGuard {
    let limit: Duration
    /// Since when the app has been busy without the clock moving, and why.
    private var busy: (since: ContinuousClock.Instant, reason: String)?

    init(limit: Duration) { self.limit = limit }

    /// What kept the clock waiting last, while it waits.
    var reason: String? { busy?.reason }

    /// Whether the app has been busy for longer than the limit.
    var isPastLimit: Bool { busy.map { JobControl.now - $0.since > limit } ?? false }

    /// Notes what keeps the clock waiting: the wait goes on from when it began.
    mutating func note(_ reason: String) {
        // On the clock that stands still while the program is stopped (Ctrl-Z): a stop is no hang.
        if busy?.reason != reason { busy = (busy?.since ?? JobControl.now, reason) }
    }

    /// The app is idle: the wait is over.
    mutating func clear() { busy = nil }
}
