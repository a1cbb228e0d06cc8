import Dispatch

/// "Am I on the main queue?" answered the way that works on Linux.
///
/// `Thread.isMainThread` is false for main-queue work under Swift Testing and
/// `dispatchMain()`, so we tag the main queue itself and ask for the tag.
public enum MainQueue {
    private static let key = DispatchSpecificKey<Bool>()
    private static let tagged: Void = DispatchQueue.main.setSpecific(key: key, value: true)

    public static var isCurrent: Bool {
        _ = tagged
        return DispatchQueue.getSpecific(key: key) == true
    }

    /// UIKit's Main Thread Checker: a UI object touched off the main queue is
    /// recorded in the instruments of the scenario that made the object (and the
    /// app carries on, as it does on iOS when the checker only logs), so a
    /// download left over from one run that touches its cell late is counted in
    /// that run, not in the next. Every touch is counted too.
    static func check(_ what: @autoclosure () -> String, in instruments: Instruments?) {
        instruments?.recordUITouch()
        if !isCurrent { instruments?.recordMainQueueViolation(what()) }
    }
}
