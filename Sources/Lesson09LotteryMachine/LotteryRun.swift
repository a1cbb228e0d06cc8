import Foundation
import LessonKit
import Synchronization

/// What to play, from the command line.
struct LotteryPlan {
    static let flags = [
        LessonOptions.ExtraFlag(
            name: "script", takesValue: true,
            help: "play these steps instead of the keyboard, e.g. \"\(LotteryScript.standard)\""),
        LessonOptions.ExtraFlag(
            name: "variant", takesValue: true,
            help:
                "the rolling loop: fixed (default), no-check (ignores isSuspended), off-main (labels off the main queue)"
        ),
    ]

    let variant: RollingVariant
    /// Nil: the keyboard plays (only on a terminal, without --script).
    let script: LotteryScript?

    init(options: LessonOptions, keyboardAvailable: Bool = RawTerminal.inputIsTerminal) throws(UsageError) {
        let variantName = options.extra["variant"] ?? "fixed"
        guard let variant = RollingVariant(rawValue: variantName) else {
            throw UsageError(
                "--variant takes \(RollingVariant.allCases.map(\.rawValue).joined(separator: ", ")), not '\(variantName)'"
            )
        }
        self.variant = variant
        if let text = options.extra["script"] {
            script = try LotteryScript(text)
        } else if keyboardAvailable && !options.json && LessonConsole(options: options).isLive {
            script = nil
        } else {
            script = try LotteryScript(LotteryScript.standard)
        }
    }
}

/// One press of the button, as the run saw it.
struct Press {
    let title: String
    let operationCountBefore: Int
    /// When the press happened, on the main queue.
    let ms: Double
}

/// Step 9 played: by hand on a terminal, or by script.
final class LotteryRun {
    let plan: LotteryPlan
    let run: CustomLessonRun
    private let quitRequested = Mutex(false)

    init(plan: LotteryPlan, run: CustomLessonRun) {
        self.plan = plan
        self.run = run
    }

    func play() async -> CustomLessonOutcome {
        let options = run.options
        let header = "Lesson 09 · the lottery machine · variant \(plan.variant.rawValue)"
        // A view controller and its labels belong to the main queue from the start.
        let (controller, screen) = await MainActor.run { [run, plan] in
            let controller = LotteryViewController(
                variant: plan.variant, tick: 0.05 / options.speed, seed: options.seed, trace: run.trace)
            return (controller, LotteryScreen(controller: controller, console: run.console, header: header))
        }
        if !run.console.isLive { run.console.say(header) }

        // Raw mode whenever there is a keyboard, script or not, so q and Ctrl-C always work.
        let terminal = RawTerminal.enter()
        let keys = AsyncStream<UInt8> { continuation in
            terminal?.readKeys { continuation.yield($0) }
        }
        await MainActor.run {
            screen.hint =
                plan.script == nil ? "space or enter: press the button · q: quit" : "playing the script · q: quit"
            screen.start()
        }

        var presses: [Press] = []
        func press() async {
            let press = await MainActor.run { () -> Press in
                let press = Press(
                    title: controller.buttonTitle, operationCountBefore: controller.queue.operationCount,
                    ms: run.trace.now())
                controller.buttonTapped()
                screen.pressed()
                return press
            }
            presses.append(press)
        }

        if let script = plan.script {
            // Only q and Ctrl-C mean something while a script plays.
            let keyWatcher = Task { [self] in
                for await key in keys where key == UInt8(ascii: "q") || key == RawTerminal.controlC {
                    quitRequested.withLock { $0 = true }
                }
            }
            defer { keyWatcher.cancel() }
            for step in script.steps {
                guard !quitRequested.withLock({ $0 }) else { break }
                switch step {
                case .press: await press()
                case .wait(let seconds): await wait(seconds / options.speed)
                case .quit: break
                }
                await MainActor.run { screen.hint = "script: \(step) · q: quit" }
                if !run.console.isLive && step != .quit {
                    let line = await MainActor.run { screen.statusLine() }
                    run.console.say("after \(step): \(line)")
                }
            }
        } else {
            for await key in keys {
                if key == UInt8(ascii: "q") || key == RawTerminal.controlC { break }
                if key == UInt8(ascii: " ") || key == 10 || key == 13 { await press() }
            }
        }

        // What a press would have found now: was the queue empty at the end of the last pause?
        presses.append(Press(title: "quit", operationCountBefore: controller.queue.operationCount, ms: run.trace.now()))
        await controller.quit()
        await MainActor.run { screen.stop() }
        terminal?.restore()
        if !run.console.isLive {
            let line = await MainActor.run { screen.statusLine() }
            run.console.say("after quit: \(line)")
        }

        return CustomLessonOutcome(
            story: plan.script.map { "script " + $0.steps.map(\.description).joined(separator: ",") } ?? "keyboard",
            measures: measures(controller, presses: presses, restored: terminal.map { _ in RawTerminal.isRestored }))
    }

    /// Waits the script's time, in slices, so a q can end it early.
    private func wait(_ seconds: Double) async {
        let end = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < end && !quitRequested.withLock({ $0 }) {
            try? await Task.sleep(for: min(.milliseconds(20), end - ContinuousClock.now))
        }
    }

    /// The numbers the lesson is about, from the updates the screen really got.
    private func measures(
        _ controller: LotteryViewController, presses: [Press], restored: Bool?
    ) -> [String: Double] {
        let updates = controller.digitUpdates
        var measures: [String: Double] = [
            "presses": Double(presses.count - 1),
            "digitUpdates": Double(updates.count),
            "digitUpdatesOffMainQueue": Double(updates.filter { !$0.onMainQueue }.count),
        ]
        // Rolls between each press and the next (or the end). A roll already on
        // its way to the main queue when the button was pressed is not counted.
        for (index, press) in presses.enumerated() {
            let until = index + 1 < presses.count ? presses[index + 1].ms : .infinity
            let during = updates.filter { $0.rolledMs > press.ms && $0.rolledMs <= until }.count
            switch press.title {
            case "pause":
                measures["rollsAfterPause"] = max(measures["rollsAfterPause"] ?? 0, Double(during))
                // The next press (or quit) found this many operations still in the queue.
                let left = Double(presses[index + 1].operationCountBefore)
                measures["operationCountAfterPause"] = max(measures["operationCountAfterPause"] ?? 0, left)
            case "resume": measures["rollsAfterResume"] = min(measures["rollsAfterResume"] ?? .infinity, Double(during))
            default: break
            }
        }
        // The rhythm while rolling: the median gap between two updates.
        let gaps = zip(updates.dropFirst(), updates).map { $0.shownMs - $1.shownMs }.sorted()
        if !gaps.isEmpty { measures["medianTickMs"] = (gaps[gaps.count / 2] * 10).rounded() / 10 }
        if let restored { measures["terminalRestored"] = restored ? 1 : 0 }
        return measures
    }
}
