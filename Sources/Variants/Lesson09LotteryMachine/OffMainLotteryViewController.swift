import Foundation

/// Bug 2 (`--off-main`): the loop checks, but sets the labels right here, on
/// the queue's thread. UIKit's Main Thread Checker would flag every one of them.
final class OffMainLotteryViewController: LotteryViewController {
    override func roll(_ rolling: Operation) {
        while !queue.isSuspended && !rolling.isCancelled {
            clock.sleep(forTimeInterval: tick)
            show(nextDigits())
        }
    }
}
