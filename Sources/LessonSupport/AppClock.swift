/// The app's clock: the tutorials' `[NSThread sleepForTimeInterval:]`, on the
/// story's time. `clock.sleep(forTimeInterval: 0.05)` holds the calling thread
/// for 50 story milliseconds, as `Thread.sleep` would hold it for 50 real
/// ones; whoever runs the app decides how story time relates to the wall's,
/// so a run is the same on a busy machine as on an idle one.
public struct AppClock: Sendable {
    private let sleep: @Sendable (Double) -> Void

    public init(sleep: @escaping @Sendable (_ seconds: Double) -> Void) {
        self.sleep = sleep
    }

    /// Blocks the calling thread for `seconds` of story time.
    public func sleep(forTimeInterval seconds: Double) {
        sleep(seconds)
    }
}
