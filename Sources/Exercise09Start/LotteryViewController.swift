import Foundation
import LessonKit
import SlowNetwork
import TableKit

/// The tutorial's lottery machine: three digits rolling every 50 ms and one
/// button, start → pause → resume. The rolling is one long operation on
/// `queue`; pausing suspends the queue.
final class LotteryViewController {
    /// One roll of the digits: when it was rolled (on the queue's thread),
    /// when the screen showed it, and whether that was on the main queue.
    struct DigitUpdate {
        let rolledMs: Double
        let shownMs: Double
        let digits: [Int]
        let onMainQueue: Bool
    }

    let digitLabels = [Label(), Label(), Label()]
    /// The button's title: "start", then "pause" and "resume" in turn.
    private(set) var buttonTitle = "start"
    let queue = OperationQueue()
    /// Wall seconds between two rolls (the tutorial's 0.05 s, divided by `--speed`).
    let tick: TimeInterval
    let trace: OperationTrace

    private let lock = NSLock()
    private var random: SeededGenerator
    private var updates: [DigitUpdate] = []

    init(tick: TimeInterval, seed: UInt64, trace: OperationTrace) {
        self.tick = tick
        self.trace = trace
        random = SeededGenerator(seed: seed)
        queue.name = "lottery queue"
        for label in digitLabels { label.text = "0" }
    }

    // MARK: the button

    /// The one button. Call it on the main queue, as UIKit would.
    func buttonTapped() {
        trace.event(buttonTitle)
        if queue.isSuspended {
            // Resume. If the rolling loop ended when the machine paused, there
            // is nothing left in the queue to carry on: start a new one.
            queue.isSuspended = false
            if queue.operationCount == 0 { startRolling() }
            buttonTitle = "pause"
        } else if queue.operationCount == 0 {
            startRolling()
            buttonTitle = "pause"
        } else {
            // Pause.
            queue.isSuspended = true
            buttonTitle = "resume"
        }
    }

    private func startRolling() {
        let rolling = BlockOperation()
        rolling.addExecutionBlock { [weak self, weak rolling] in
            guard let self = self, let rolling = rolling else { return }
            self.trace.span("rolling") {
                self.roll(rolling)
            }
        }
        queue.addOperation(rolling)
    }

    // MARK: the rolling loop

    /// Exercise 9: roll every tick until the machine is paused (or the app
    /// quits), and show each result. Two bugs: pausing does not stop this
    /// loop, and it sets the labels from the queue's thread.
    private func roll(_ rolling: Operation) {
        while !rolling.isCancelled {
            Thread.sleep(forTimeInterval: tick)
            show(nextDigits(), rolledMs: trace.now())
        }
    }

    private func nextDigits() -> [Int] {
        lock.withLock { (0..<3).map { _ in Int(random.next() % 10) } }
    }

    private func show(_ digits: [Int], rolledMs: Double) {
        trace.span("digits") {
            for (label, digit) in zip(digitLabels, digits) { label.text = String(digit) }
        }
        let update = DigitUpdate(
            rolledMs: rolledMs, shownMs: trace.now(), digits: digits, onMainQueue: MainQueue.isCurrent)
        lock.withLock { updates.append(update) }
    }

    // MARK: quitting and measuring

    /// Stops the rolling, and waits until the queue is empty.
    func quit() async {
        queue.cancelAllOperations()
        // Cancelled operations still have to be started to finish: a suspended queue starts nothing.
        queue.isSuspended = false
        _ = await OperationWaiter.waitUntilFinished(queue.operations, timeoutSeconds: 10)
    }

    /// Every update shown so far, in order.
    var digitUpdates: [DigitUpdate] { lock.withLock { updates } }

    var updateCount: Int { lock.withLock { updates.count } }
}

/// What exercise 9's checks look at (`swift run lessons check 9`).
extension LotteryViewController: LotteryMachineExercise {
    var shownRolls: [(rolledMs: Double, onMainQueue: Bool)] { digitUpdates.map { ($0.rolledMs, $0.onMainQueue) } }
}
