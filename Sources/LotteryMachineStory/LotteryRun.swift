import Foundation
import HarnessSync
import LessonKit
import LessonSupport
import TableKit

/// What to play, from the command line.
struct LotteryPlan: Sendable {
    static func flags(variants: [ScreenVariant]) -> [Flag<LessonOptions>] {
        [
            .step(
                "--script", .list("STEPS"),
                help: "play these steps instead of the keyboard, e.g. \"\(LotteryScript.standard)\""),
            .step("--play", help: "press the button yourself: space or Enter (on a terminal, where it is the default)"),
        ] + variants.map { .step("--" + $0.flag, help: $0.help) }
    }

    /// What `--scenario` plays: the standard script on the step's machine
    /// ("standard") or on a variant (its flag's name).
    static func stories(variants: [ScreenVariant]) -> [String] {
        ["standard"] + variants.map(\.flag)
    }

    /// The step's machine, or the variant its flag chose.
    let machine: any ScreenController.Type
    /// The variant's flag, if one was chosen.
    let variant: String?
    /// Nil: the keyboard plays (only on a terminal, without --script).
    let script: LotteryScript?

    /// How the run names itself and its machine: the step's, or a learner's in the workbench.
    struct Names: Sendable {
        var heading = "Lesson 09 · the lottery machine"
        var machine = "the step's machine"
        var program = "Lesson09LotteryMachine"

        init(workbench: LessonEntry? = nil) {
            guard let workbench else { return }
            heading = workbench.title.prefix(1).uppercased() + workbench.title.dropFirst()
            machine = "your machine"
            program = workbench.target
        }
    }

    let names: Names

    init(
        options: LessonOptions, machine: any ScreenController.Type, names: Names = Names(),
        keyboardAvailable: Bool = RawTerminal.inputIsTerminal
    ) throws(UsageError) {
        self.names = names
        let chosen = machine.variants.filter { options.extra[$0.flag] != nil || options.scenario == $0.flag }
        guard chosen.count <= 1 else {
            throw UsageError("choose one of \(chosen.map { "--" + $0.flag }.joined(separator: ", "))")
        }
        if options.scenario != nil && options.extra["script"] != nil {
            throw UsageError("--scenario plays the standard script: give it or --script, not both")
        }
        let live = keyboardAvailable && !options.json && LessonConsole(options: options).isLive
        if options.extra["play"] != nil {
            if options.scenario != nil || options.extra["script"] != nil {
                throw UsageError("--play presses the button from your keys: give it or --script/--scenario, not both")
            }
            guard live else {
                throw UsageError("--play needs a terminal for its keys (and no --json or --plain); play a script with --script")
            }
        }
        self.machine = chosen.first?.controller ?? machine
        variant = chosen.first?.flag
        if let text = options.extra["script"] {
            script = try LotteryScript(text)
        } else if options.scenario == nil && live {
            script = nil
        } else {
            script = try LotteryScript(LotteryScript.standard)
        }
    }

    /// "the step's machine" (or "your machine") or "--no-check", for the header.
    var machineName: String { variant.map { "--" + $0 } ?? names.machine }
}

/// One press of the button, as the run saw it.
struct Press {
    let title: String
    let operationCountBefore: Int
    /// When the press happened, on the main queue.
    let ms: Double
}

/// Step 9 played: by hand on a terminal, or by script.
final class LotteryRun: Sendable {
    let plan: LotteryPlan
    let run: CustomLessonRun
    private let quitRequested = Locked(false, .seen)
    /// A q pressed while a script plays: ends the wait under way.
    private let quit = Trigger()

    init(plan: LotteryPlan, run: CustomLessonRun) {
        self.plan = plan
        self.run = run
    }

    func play() async -> CustomLessonOutcome {
        let header = "\(plan.names.heading) · \(plan.machineName)"
        guard let made = await makeMachine(header: header) else {
            return CustomLessonOutcome(story: "no machine to play", measures: [:], exitStatus: 1)
        }
        let (session, screen) = made
        if !run.console.isLive { run.console.say(header) }

        // Raw mode whenever there is a keyboard, script or not, so q and Ctrl-C always work.
        let terminal = RawTerminal.enter()
        let keys = AsyncStream<UInt8> { continuation in
            terminal?.readKeys { continuation.yield($0) }
        }
        await MainActor.run { [plan] in
            screen.hint =
                plan.script == nil ? "space or enter: press the button · q: quit" : "playing the script · q: quit"
            screen.start()
        }
        var presses: [Press]
        if let script = plan.script {
            presses = await play(script, keys: keys, session: session, screen: screen)
        } else {
            presses = await playByHand(keys: keys, session: session, screen: screen)
        }

        // What a press would have found now: was the queue empty at the end of the last pause?
        presses.append(Press(title: "quit", operationCountBefore: session.operationCount, ms: run.trace.now()))
        await session.end()
        await MainActor.run { screen.stop() }
        terminal?.restore()
        if !run.console.isLive {
            let line = await MainActor.run { screen.statusLine() }
            run.console.say("after quit: \(line)")
        }
        recordRolls(of: session)

        return CustomLessonOutcome(
            story: plan.script.map { "script " + $0.steps.map(\.description).joined(separator: ",") } ?? "keyboard",
            measures: measures(session, presses: presses, restored: terminal.map { _ in RawTerminal.isRestored }),
            sentences: LotterySentences.all)
    }

    /// The step's machine and its screen, made on the main queue, where a view controller and its labels belong
    /// from the start; nil, said on standard error, when the machine lacks what the story needs.
    private func makeMachine(header: String) async -> (ScreenSession, LotteryScreen)? {
        let made = await MainActor.run { [run, plan] in
            ScreenSession.make(plan.machine, seed: run.options.seed, trace: run.trace).map {
                ($0, LotteryScreen(session: $0, console: run.console, header: header))
            }
        }
        switch made {
        case .success(let made):
            return made
        case .failure(let missing):
            FileHandle.standardError.write(Data("\(plan.names.program): \(missing)\n".utf8))
            return nil
        }
    }

    /// Presses the machine's button as a user would, noting what it showed before.
    private func press(_ session: ScreenSession, _ screen: LotteryScreen) async -> Press {
        await MainActor.run { () -> Press in
            let (title, operationCount) = (session.button.title, session.operationCount)
            let ms = session.press()
            screen.pressed()
            return Press(title: title, operationCountBefore: operationCount, ms: ms)
        }
    }

    /// Plays the script's steps; only q and Ctrl-C mean something meanwhile.
    private func play(
        _ script: LotteryScript, keys: AsyncStream<UInt8>, session: ScreenSession, screen: LotteryScreen
    ) async -> [Press] {
        let keyWatcher = Task { [self] in
            for await key in keys where key == UInt8(ascii: "q") || key == RawTerminal.controlC {
                quitRequested.withLock { $0 = true }
                quit.fire()
            }
        }
        defer { keyWatcher.cancel() }
        var presses: [Press] = []
        for step in script.steps {
            guard !quitRequested.withLock({ $0 }) else { break }
            switch step {
            case .press: presses.append(await press(session, screen))
            case .wait(let seconds): await wait(seconds)
            case .quit: break
            }
            await MainActor.run { screen.hint = "script: \(step) · q: quit" }
            if !run.console.isLive && step != .quit {
                let line = await MainActor.run { screen.statusLine() }
                run.console.say("after \(step): \(line)")
            }
        }
        return presses
    }

    /// A person at the keyboard drives the story: the time runs, paced to the wall clock, until q or Ctrl-C.
    private func playByHand(keys: AsyncStream<UInt8>, session: ScreenSession, screen: LotteryScreen) async -> [Press] {
        run.trace.clock.release()
        defer { run.trace.clock.hold() }
        var presses: [Press] = []
        var said = KeySaid()
        for await key in keys {
            if key == UInt8(ascii: "q") || key == RawTerminal.controlC { break }
            let pressed = key == UInt8(ascii: " ") || key == 10 || key == 13
            let before = await MainActor.run { session.button.title }
            if pressed { presses.append(await press(session, screen)) }
            let after = await MainActor.run { session.button.title }
            guard let line = said.line(for: key, pressedFrom: pressed ? before : nil, to: after) else { continue }
            let seconds = String(format: "%.1f", run.trace.now() / 1000)
            await MainActor.run { screen.lastKey = "last key, at \(seconds) s: \(line)" }
        }
        return presses
    }

    /// Waits the script's story seconds; a q ends the wait at once.
    private func wait(_ seconds: Double) async {
        _ = await run.trace.clock.wait(atMost: seconds) { fire in quit.whenFired(fire) }
    }

    /// Each roll on the timeline, on the lane that drew it.
    private func recordRolls(of session: ScreenSession) {
        for roll in session.rolls {
            run.trace.record(.init(name: "roll", lane: roll.lane, startMs: roll.ms, endMs: roll.ms))
        }
    }

    /// The numbers the lesson is about: the rolls from the digits the machine
    /// drew (timed on the thread that drew them), the rolls shown off the main
    /// queue from the label writes TableKit recorded there.
    private func measures(_ session: ScreenSession, presses: [Press], restored: Bool?) -> [String: Double] {
        let rolls = session.rolls
        let labelWritesOffMain =
            Instruments.current?.mainQueueViolations.filter { $0.hasPrefix("Label.text") }.count ?? 0
        var measures: [String: Double] = [
            "presses": Double(presses.count - 1),
            "digitUpdates": Double(rolls.count),
            "digitUpdatesOffMainQueue": Double(labelWritesOffMain / max(session.outlets.labels.count, 1)),
        ]
        // Rolls between each press and the next (or the end). A roll already on
        // its way to the main queue when the button was pressed is not counted.
        for (index, press) in presses.enumerated() {
            let until = index + 1 < presses.count ? presses[index + 1].ms : .infinity
            let during = rolls.filter { $0.ms > press.ms && $0.ms <= until }.count
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
        // The rhythm while rolling: the median gap between two rolls.
        let gaps = zip(rolls.dropFirst(), rolls).map { $0.ms - $1.ms }.sorted()
        if !gaps.isEmpty { measures["medianTickMs"] = (gaps[gaps.count / 2] * 10).rounded() / 10 }
        if let restored { measures["terminalRestored"] = restored ? 1 : 0 }
        return measures
    }
}

/// Something that happens once (a q pressed), and whoever waits for it.
final class Trigger: Sendable {
    private let state = Locked<(fired: Bool, waiting: [@Sendable () -> Void])>((false, []), .seen)

    func fire() {
        let waiting = state.withLock { state in
            defer { state = (true, []) }
            return state.waiting
        }
        for call in waiting { call() }
    }

    /// Calls `call` once it has fired: now, or when it does.
    func whenFired(_ call: @escaping @Sendable () -> Void) {
        let fired = state.withLock { state in
            if !state.fired { state.waiting.append(call) }
            return state.fired
        }
        if fired { call() }
    }
}

/// What a key typed at the machine did, for the line under it: every key says, even one that does nothing here.
struct KeySaid {
    /// Inside an escape sequence (an arrow key sends ESC [ A): its bytes are one key, said once.
    private var inSequence = false

    /// The sentence for `key`; nil for the rest of a key already said. `pressedFrom`: the button's title when
    /// the key pressed it, `to` its title after.
    mutating func line(for key: UInt8, pressedFrom before: String?, to after: String) -> String? {
        if inSequence {
            // A sequence ends with a letter or "~" after its "[" (or at once after ESC O).
            if key != UInt8(ascii: "[") && key != UInt8(ascii: "O") && key >= 0x40 && key <= 0x7E { inSequence = false }
            return nil
        }
        if let before {
            let name = key == UInt8(ascii: " ") ? "space" : "Enter"
            return "\(name) pressed the button \"\(before)\"; it now reads \"\(after)\""
        }
        if key == 0x1B { inSequence = true }
        let shown = (0x21...0x7E).contains(key) ? "'\(Character(Unicode.Scalar(key)))'" : "that key"
        return "\(shown) does nothing here: space or Enter presses the button, q quits"
    }
}
