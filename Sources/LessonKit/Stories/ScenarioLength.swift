extension Scenario {
    /// The most story time the script can take: every drag, fling and pause
    /// for its length, every settle to its limit. Played for a person at
    /// `--speed 1`, the run lasts about this long in wall time; unpaced (the
    /// tests, `--json`, the exercise checks) it takes a small part of it.
    public var longestStory: Duration {
        let seconds = steps.reduce(0.0) { total, step in
            switch step {
            case .drag(_, let seconds), .fling(_, let seconds), .peek(_, let seconds), .pause(let seconds): total + seconds
            case .settle(let timeout): total + timeout
            case .memoryWarning, .goOffline, .goOnline, .relaunch, .deleteCachesFolder, .slowDown: total
            }
        }
        return .milliseconds(Int((seconds * 1000).rounded(.up)))
    }
}
