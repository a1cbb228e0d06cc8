import Foundation

/// Asks libdispatch's worker pool "are you free?" by sending it an empty
/// operation and noting when it ran.
///
/// A settle step ends when nothing has loaded for a moment ("the app has
/// given up"). On Linux, operation queues, Swift's task executor and any test
/// running beside a scenario share a few worker threads, and the pool grows
/// slowly when they block; a lesson's downloads can then sit queued, unstarted,
/// for longer than that moment. Quiet counts only once a probe sent after the
/// quiet began has run: the pool had a free thread, so work queued before the
/// probe had its chance to start.
///
/// The probe travels the way the lessons' operations do: an operation added
/// to an `OperationQueue` from the main queue. Such an operation inherits the
/// adding thread's quality of service, each quality of service has its own
/// threads here, and under load their nice values decide who runs. Probes sent
/// another way were answered while the lessons' operations still waited: a
/// background-QoS block (a relaunch then found 2 of 8 icons missing on disk),
/// and a default-QoS global-queue block, inside the test process, where step
/// 7's resumed downloads had not started 130 ms after it ran (5 to 13 of its
/// 28 icons never asked for, in 3 of 12 runs with both cores busy; 0 in 12
/// with this probe).
final class WorkerProbe: @unchecked Sendable {
    private let lock = NSLock()
    private let queue = OperationQueue()
    /// When the probe now in the pool was sent, if one is.
    private var outstandingSentMs: Double?
    /// When the last probe that ran was sent.
    private var answeredSentMs = -Double.infinity

    /// Whether a probe sent at or after `ms` has run. If not, and none is in
    /// the pool, sends one (stamped `nowMs`) and answers false. Called on the
    /// main queue, where the lessons add their operations.
    func poolWasFree(since ms: Double, nowMs: Double) -> Bool {
        let (wasFree, sendProbe) = lock.withLock {
            if answeredSentMs >= ms { return (true, false) }
            if outstandingSentMs != nil { return (false, false) }
            outstandingSentMs = nowMs
            return (false, true)
        }
        if sendProbe {
            queue.addOperation {
                self.lock.withLock {
                    if let sent = self.outstandingSentMs { self.answeredSentMs = sent }
                    self.outstandingSentMs = nil
                }
            }
        }
        return wasFree
    }
}
