import Dispatch
import Foundation
import LessonKit
import SlowNetwork
import Synchronization

/// `lessons bench`: what one trivial unit of work costs when it goes through
/// an `OperationQueue`, through `DispatchQueue.async`, and through Swift
/// concurrency's tasks — measured in one run, on this machine, as ratios.
///
/// The seed tutorial opens with "NSOperation vs GCD"; this is the measured
/// answer. Build it optimised: `swift run -c release lessons bench`.
enum BenchCommand: LessonsCommand {
    static let name = "bench"
    static let abstract = "Operation vs GCD vs Swift concurrency (swift run -c release lessons bench)"
    struct Options {
        var units = 100_000
        var rounds = 5
    }

    static var flags: FlagTable<Options> {
        FlagTable(
            Options(),
            flags: [
                .value(
                    "--units", .wholeNumber("N", in: 1...10_000_000), \.units,
                    help: "units of work per path and round (default: 100000)"),
                .value(
                    "--rounds", .wholeNumber("N", in: 1...10_000_000), \.rounds,
                    help: "rounds; the median is reported (default: 5)"),
            ])
    }

    static let about = """
        The unit of work is one atomic increment: what is measured is the cost of scheduling it.
        Build it optimised, or the figures mean little: swift run -c release lessons bench
        """

    /// One way to run `units` trivial closures and wait for all of them.
    struct Path: Sendable {
        let name: String
        let run: @Sendable (Int, Counter) async -> Void
    }

    final class Counter: Sendable {
        private let value = Atomic(0)
        func tick() { value.add(1, ordering: .relaxed) }
        var count: Int { value.load(ordering: .relaxed) }
    }

    static let baseline = "DispatchQueue.async + group"

    static let paths: [Path] = [
        Path(name: "direct call (the work alone)") { units, counter in
            for _ in 0..<units { counter.tick() }
        },
        Path(name: baseline) { units, counter in
            dispatchAsync(units, counter)
        },
        Path(name: "OperationQueue.addOperation") { units, counter in
            operationQueue(units, counter)
        },
        Path(name: "withTaskGroup { addTask }") { units, counter in
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<units { group.addTask { counter.tick() } }
            }
        },
        Path(name: "Task { } per unit, awaited") { units, counter in
            let tasks = (0..<units).map { _ in Task { counter.tick() } }
            for task in tasks { await task.value }
        },
    ]

    /// Blocking waits live in plain functions: they are the way GCD and
    /// OperationQueue are waited for, and they must not run on a task's thread.
    private static func dispatchAsync(_ units: Int, _ counter: Counter) {
        let group = DispatchGroup()
        let queue = DispatchQueue.global()
        for _ in 0..<units { queue.async(group: group) { counter.tick() } }
        group.wait()
    }

    private static func operationQueue(_ units: Int, _ counter: Counter) {
        let queue = OperationQueue()
        for _ in 0..<units { queue.addOperation { counter.tick() } }
        queue.waitUntilAllOperationsAreFinished()
    }

    static func run(_ options: Options) async -> Int32 {
        let (units, rounds) = (options.units, options.rounds)
        #if DEBUG
            printError(
                "lessons bench: this is a debug build; the figures mean little. Use: swift run -c release lessons bench"
            )
        #endif
        let results = await measure(units: units, rounds: rounds)
        say(report(results, units: units, rounds: rounds))
        return results.allSatisfy(\.complete) ? 0 : 1
    }

    struct Result: Sendable {
        let name: String
        let nanosecondsPerUnit: Double
        /// Every unit ran, every round.
        let complete: Bool
    }

    /// Runs every path `rounds` times, interleaved (path order rotates each
    /// round, so no path always runs first on a cold cache), and keeps each
    /// path's median.
    static func measure(units: Int, rounds: Int) async -> [Result] {
        var samples = [[Double]](repeating: [], count: paths.count)
        var complete = [Bool](repeating: true, count: paths.count)
        for round in 0..<rounds {
            for offset in paths.indices {
                let index = (offset + round) % paths.count
                let counter = Counter()
                let start = ContinuousClock.now
                await paths[index].run(units, counter)
                let elapsed = ContinuousClock.now - start
                let nanoseconds =
                    Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
                samples[index].append(nanoseconds / Double(units))
                if counter.count != units { complete[index] = false }
            }
        }
        return paths.indices.map { index in
            let sorted = samples[index].sorted()
            return Result(
                name: paths[index].name, nanosecondsPerUnit: sorted[sorted.count / 2], complete: complete[index])
        }
    }

    static func report(_ results: [Result], units: Int, rounds: Int) -> String {
        let reference = results.first { $0.name == baseline }?.nanosecondsPerUnit ?? 1
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let load = LoadAverage.lastMinute().map { String(format: "%.2f", $0) } ?? "?"
        var lines = [
            "Cost per trivial unit of work (one atomic increment), \(units) units, median of \(rounds) rounds",
            "on \(cores) cores, load average \(load) at the end",
            "",
            "path".padding(toLength: 32, withPad: " ", startingAt: 0) + "  ns/unit   × GCD",
        ]
        for result in results {
            lines.append(
                result.name.padding(toLength: 32, withPad: " ", startingAt: 0)
                    + String(format: " %8.1f %7.2f", result.nanosecondsPerUnit, result.nanosecondsPerUnit / reference)
                    + (result.complete ? "" : "  (units went missing!)"))
        }
        if let reading = reading(results) { lines += ["", reading] }
        return lines.joined(separator: "\n")
    }

    /// What the figures say, in a sentence: an Operation's cost against a GCD
    /// block's, and against the download it would run.
    static func reading(_ results: [Result]) -> String? {
        func cost(_ name: String) -> Double? { results.first { $0.name == name && $0.complete }?.nanosecondsPerUnit }
        guard let gcd = cost(baseline), let operation = cost("OperationQueue.addOperation"), gcd > 0 else {
            return nil
        }
        let latency = NetworkConditions().latency
        let operations = Int((latency * 1e9 / operation).rounded())
        let ratio = String(format: "%.1f", operation / gcd)
        return
            "Reading: an Operation costs \(ratio)× a GCD block, and one \(Int(latency * 1000)) ms download as much as "
            + "\(operations.formatted()) Operations: choose by what it adds (dependencies, cancelling)."
    }
}
