import Foundation

/// Asks libdispatch's worker pool "are you free?" by sending it an empty block
/// and noting when it ran.
///
/// A settle step ends when nothing has loaded for a moment ("the app has
/// given up"). On Linux, operation queues, Swift's task executor and any test
/// running beside a scenario share a few worker threads, and the pool grows
/// slowly when they block; a lesson's downloads can then sit queued, unstarted,
/// for longer than that moment. Quiet counts only once a probe sent after the
/// quiet began has run: the pool had a free thread, so work queued before the
/// probe had its chance to start. The probe goes to the same global queue as
/// the lessons' operations (default quality of service, which an
/// `OperationQueue` uses unless told otherwise), behind them: each quality of
/// service has its own threads here, and a background probe was answered
/// while step 6's downloads still waited (a relaunch then found 2 of 8 icons
/// missing on disk).
final class WorkerProbe: @unchecked Sendable {
    private let lock = NSLock()
    /// When the probe now in the pool was sent, if one is.
    private var outstandingSentMs: Double?
    /// When the last probe that ran was sent.
    private var answeredSentMs = -Double.infinity

    /// Whether a probe sent at or after `ms` has run. If not, and none is in
    /// the pool, sends one (stamped `nowMs`) and answers false.
    func poolWasFree(since ms: Double, nowMs: Double) -> Bool {
        let (wasFree, sendProbe) = lock.withLock {
            if answeredSentMs >= ms { return (true, false) }
            if outstandingSentMs != nil { return (false, false) }
            outstandingSentMs = nowMs
            return (false, true)
        }
        if sendProbe {
            DispatchQueue.global().async {
                self.lock.withLock {
                    if let sent = self.outstandingSentMs { self.answeredSentMs = sent }
                    self.outstandingSentMs = nil
                }
            }
        }
        return wasFree
    }
}
