import Foundation
import LessonSupport
import TableKit

/// The tutorial's lottery machine: three digits rolling every 50 ms and one
/// button, start → pause → resume. The rolling is one long operation on
/// `queue`; pausing suspends the queue.
class LotteryViewController: ScreenController {
    let digitLabels = [Label(), Label(), Label()]
    let startButton = Button(title: "start")
    let queue = OperationQueue()
    /// Seconds between two rolls: the tutorial's 0.05.
    let tick: TimeInterval = 0.05
    /// What the loop sleeps on: the tutorial's `[NSThread sleepForTimeInterval:]`.
    let clock: AppClock
    /// The tutorial's `arc4random_uniform`, seeded.
    let random: RandomSource

    required init(environment: ScreenEnvironment) {
        clock = environment.clock
        random = environment.random
        queue.name = "lottery queue"
        for label in digitLabels { label.text = "0" }
        startButton.addAction { [weak self] in self?.start() }
    }

    // MARK: the button

    /// The button's action (the tutorial's `start:`), called on the main queue.
    func start() {
        if queue.isSuspended {
            // Resume. Pausing ended the rolling loop, so there is nothing left
            // in the queue to carry on: start a new one.
            queue.isSuspended = false
            if queue.operationCount == 0 { startRolling() }
            startButton.title = "pause"
        } else if queue.operationCount == 0 {
            startRolling()
            startButton.title = "pause"
        } else {
            // Pause. This only stops the queue from *starting* operations; the
            // one already running stops because it checks `isSuspended` itself.
            queue.isSuspended = true
            startButton.title = "resume"
        }
    }

    private func startRolling() {
        let rolling = BlockOperation()
        rolling.addExecutionBlock { [weak self, weak rolling] in
            guard let self = self, let rolling = rolling else { return }
            self.roll(rolling)
        }
        queue.addOperation(rolling)
    }

    // MARK: the rolling loop

    /// The tutorial's loop: roll every tick until the queue is suspended (or
    /// the app quits), and hand each result to the main queue to show.
    func roll(_ rolling: Operation) {
        while !queue.isSuspended && !rolling.isCancelled {
            clock.sleep(forTimeInterval: tick)
            let digits = nextDigits()
            OperationQueue.main.addOperation { self.show(digits) }
        }
    }

    /// Three digits, 0 to 9: the tutorial's `arc4random_uniform(10)` three times.
    func nextDigits() -> [Int] {
        var random = self.random
        return digitLabels.map { _ in Int.random(in: 0..<10, using: &random) }
    }

    /// The labels are UI: call it on the main queue.
    func show(_ digits: [Int]) {
        for (label, digit) in zip(digitLabels, digits) { label.text = String(digit) }
    }
}
