import Foundation

@preconcurrency @testable import Lesson09LotteryMachine

/// Exercise 9 solved another way: the rolling loop looks at `isSuspended` on
/// each tick, but waits while paused instead of ending, so the digits stop and
/// the operation stays in the queue, holding its worker thread, until the resume.
final class WaitWhilePausedLotteryViewController: LotteryViewController, @unchecked Sendable {
    override func roll(_ rolling: Operation) {
        while !rolling.isCancelled {
            clock.sleep(forTimeInterval: tick)
            if queue.isSuspended { continue }
            let digits = nextDigits()
            OperationQueue.main.addOperation { self.show(digits) }
        }
    }
}
