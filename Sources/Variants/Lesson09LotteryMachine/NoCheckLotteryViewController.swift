import Foundation

/// Bug 1 (`--no-check`): the rolling loop without the `isSuspended` check.
/// Suspending the queue does not touch a running operation, so this rolls
/// on; only quitting (cancel) stops it.
final class NoCheckLotteryViewController: LotteryViewController {
    override func roll(_ rolling: Operation) {
        while !rolling.isCancelled {
            clock.sleep(forTimeInterval: tick)
            let digits = nextDigits()
            OperationQueue.main.addOperation { self.show(digits) }
        }
    }
}
