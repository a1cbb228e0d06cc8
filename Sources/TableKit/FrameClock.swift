import Dispatch

/// The display's heartbeat: a 60 Hz timer on the main queue, like
/// `CADisplayLink`. When the main queue is blocked the ticks cannot run, and
/// the gap between two ticks is exactly what the user saw as a frozen screen.
///
/// A dispatch timer is used because it fires both in an executable and under
/// Swift Testing (a `Timer` on `RunLoop.main` does not fire under `dispatchMain`).
public final class FrameClock: @unchecked Sendable {
    public static let framesPerSecond = 60.0
    public static let frameMs = 1000.0 / framesPerSecond

    private let timer: any DispatchSourceTimer

    public init(onFrame: @escaping @Sendable () -> Void) {
        timer = DispatchSource.makeTimerSource(flags: .strict, queue: .main)
        let interval = DispatchTimeInterval.microseconds(Int(1_000_000 / Self.framesPerSecond))
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .microseconds(500))
        timer.setEventHandler(handler: onFrame)
    }

    public func start() { timer.resume() }

    public func stop() { timer.cancel() }
}
