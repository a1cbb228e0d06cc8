import Foundation
import DependencyTour
import LessonKit
import SlowNetwork

/// The checks of exercise 8 (dependencies), parameterized by the code under
/// test: step 8's `SoftwareUpdate`, the exercise's starting code, the
/// learner's workbench, each made in the world the check gives it and handed
/// over as its controls. What each run did is read from outside: the order of
/// the lines its steps logged, and whether each found what the one before it
/// should have left.
public enum DependencyChecks {
    /// Builds the update under test for one run, in the world given.
    public typealias Make = (UpdateWorld) -> SoftwareUpdateControls

    /// The seeds the chain is played with: each draws its own download and
    /// unzip times, so without dependencies some finish out of order.
    public static let seeds: [UInt64] = [1, 2, 3, 4, 5, 6, 7, 8]
    /// How long a chain may take before it counts as hung, in story seconds (a
    /// chain takes at most about 4; waiting costs nothing on the story clock).
    static let chainTimeout = 60.0
    /// How long an enqueued cycle is watched before it counts as hung, in
    /// story seconds: none of its operations can ever start, and a chain that
    /// is not one has long finished by then.
    static let cycleWatch = 60.0

    public static let order = BugText(
        name: "the update's steps run out of order",
        expected: "all \(seeds.count) runs finish download, unzip, install, each with what the one before it left",
        why:
            "Without dependencies the three operations start together and finish in whatever order their durations "
            + "say: install can run before unzip has left anything to install. `addDependency` orders them, even "
            + "across queues: install sits on the main queue and waits for unzip on the background queue. The order "
            + "you add them to the queues does not matter.",
        hints: Hints(
            question:
                "The three operations go to their queues together. What makes unzip wait until download has "
                + "finished? Nothing in the code says so yet.",
            place: CodePlace("func start(withDependencies: Bool)", in: "SoftwareUpdate.swift"),
            api:
                "`Operation.addDependency(_:)`: an operation does not start until every operation it depends on "
                + "has finished, even one on another queue. Add the dependencies before the operations go to their "
                + "queues; the order they are added in then does not matter.",
            code: [
                .lines(
                    from: "unzip.addDependency(download)", through: "install.addDependency(unzip)",
                    in: "DependencyCycle.swift")
            ]))
    public static let cycle = BugText(
        name: "a dependency cycle hangs without a word",
        expected:
            "`startCheckingForCycles(withCycle: true)` throws an error naming download, unzip and install · without "
            + "the cycle the update still runs in order",
        why:
            "`Operation` has no cycle check: a cycle is accepted, every operation in it waits for another forever "
            + "(`isReady` stays false), and nothing complains — `waitUntilAllOperationsAreFinished()` just never "
            + "returns. So look before you enqueue, on both queues, and say which operations wait for each other.",
        hints: Hints(
            question:
                "With the tutorial's extra line, download waits for install, which waits for unzip, which waits "
                + "for download. Who could notice, and when: before or after the queues have them?",
            place: CodePlace("func startCheckingForCycles(withCycle: Bool)", in: "DependencyCycle.swift"),
            api:
                "`Operation.dependencies` lists what an operation waits for. Walk them depth first from each "
                + "operation: one met again while it is still on the path being walked closes a cycle. Throw an "
                + "`Error` whose description names the operations on it (their `name`), before either queue sees "
                + "one.",
            code: [
                .lines(
                    from: "static func cycle(among operations: [Operation]) -> [Operation]? {",
                    through: "var path: [Operation] = []", in: "DependencyCycle.swift"),
                .line("if let index = path.firstIndex(where: { $0 === operation }) {", in: "DependencyCycle.swift"),
                .line("try DependencyCheck.checkForCycles([download, unzip, install])", in: "DependencyCycle.swift"),
            ]))

    static func conditions(seed: UInt64) -> NetworkConditions {
        var options = LessonOptions()
        options.seed = seed
        var conditions = NetworkConditions(options)
        conditions.jitter = 0.5
        return conditions
    }

    public static func check(narrate: ((String) -> Void)? = nil, make: Make) async -> [CheckResult] {
        [await checkOrder(narrate: narrate, make: make), await checkCycle(narrate: narrate, make: make)]
    }

    /// One chain played alone in the process: the steps in the order they
    /// finished their work; nil if it did not finish in time.
    static func playChain(
        seed: UInt64, make: Make, start: (SoftwareUpdateControls) throws -> [Operation]
    ) async throws -> [UpdateWorld.FinishedStep]? {
        let outcome: Result<[UpdateWorld.FinishedStep]?, any Error> = await ExclusiveRun.run { _ in
            let (world, clock) = storyWorld(seed: seed)
            defer { clock.shutDown() }
            let update = make(world)
            let operations: [Operation]
            do {
                operations = try start(update)
            } catch {
                return .failure(error)
            }
            guard await clock.waitUntilFinished(operations, atMost: chainTimeout) else {
                await release(operations, on: clock)
                return .success(nil)
            }
            return .success(world.finishedSteps)
        }
        return try outcome.get()
    }

    static func checkOrder(narrate: ((String) -> Void)?, make: Make) async -> CheckResult {
        var inOrder = 0
        var withoutInput = 0
        for seed in seeds {
            guard
                let steps = try? await playChain(seed: seed, make: make, start: { $0.start(true) })
            else {
                narrate?("seed \(seed): the chain did not finish in \(Int(chainTimeout)) story seconds")
                return order.result(
                    passed: false,
                    measured:
                        "the chain with seed \(seed) did not finish in \(Int(chainTimeout)) story seconds (a cycle?)")
            }
            let good = steps.map(\.name) == UpdateWorld.steps && !steps.contains(where: \.foundNothing)
            if good { inOrder += 1 }
            if steps.contains(where: \.foundNothing) { withoutInput += 1 }
            narrate?(
                "seed \(seed): finished "
                    + steps.map { $0.name + ($0.foundNothing ? " (found nothing)" : "") }.joined(separator: ", "))
        }
        return order.result(
            passed: inOrder == seeds.count,
            measured: "\(inOrder) of \(seeds.count) runs in order · a step found nothing to work on in \(withoutInput)")
    }

    static func checkCycle(narrate: ((String) -> Void)?, make: Make) async -> CheckResult {
        func result(_ passed: Bool, _ measured: String) -> CheckResult {
            narrate?("with the cycle: \(measured)")
            return cycle.result(passed: passed, measured: measured)
        }
        // Enqueued, watched and let go in one exclusive run: a hung operation
        // left on `OperationQueue.main` would keep any scenario played after it
        // from ever seeing the app idle.
        let outcome: Result<(finished: Bool, started: Int, count: Int), any Error> = await ExclusiveRun.run { _ in
            let (world, clock) = storyWorld(seed: 1)
            defer { clock.shutDown() }
            let update = make(world)
            let operations: [Operation]
            do {
                operations = try update.startCheckingForCycles(true)
            } catch {
                return .failure(error)
            }
            let finished = await clock.waitUntilFinished(operations, atMost: cycleWatch)
            let started = operations.filter { $0.isExecuting || $0.isFinished }.count
            await release(operations, on: clock)
            return .success((finished, started, operations.count))
        }
        switch outcome {
        case .failure(let error):
            let text = "\(error)"
            let named = UpdateWorld.steps.allSatisfy { text.contains($0) }
            guard named else { return result(false, "refused, but the error does not name the cycle: \(text)") }
            // The check must not break the chain without a cycle.
            let plain = try? await playChain(seed: 1, make: make) { try $0.startCheckingForCycles(false) }
            guard let plain, plain.map(\.name) == UpdateWorld.steps else {
                return result(false, "refused the cycle (\(text)), but without it the update did not run in order")
            }
            return result(true, "refused: \(text)")
        case .success(let run):
            if run.finished {
                return result(false, "no error; the operations ran (was the cycle's dependency left out?)")
            }
            return result(
                false,
                "no error; enqueued, and after \(Int(cycleWatch)) story seconds \(run.started) of \(run.count) operations had "
                    + "started, none finished: hung")
        }
    }

    /// Lets hung operations go: a cancelled operation no longer waits for its
    /// dependencies, so a cycle ends (and no queue keeps it after the check).
    static func release(_ operations: [Operation], on clock: SleepClock) async {
        for operation in operations { operation.cancel() }
        _ = await clock.waitUntilFinished(operations)
    }

    /// A world for one run of the update, on a story clock of its own that
    /// watches the main queue (where install runs); shut it down after.
    static func storyWorld(seed: UInt64) -> (UpdateWorld, SleepClock) {
        let clock = SleepClock()
        clock.watch(OperationQueue.main)
        return (UpdateWorld(conditions: conditions(seed: seed), trace: OperationTrace(clock: clock)), clock)
    }
}
