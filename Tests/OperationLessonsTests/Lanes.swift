import Foundation
import Testing

/// The suites that play their scenarios in a test process of their own.
///
/// A scenario runs on the main queue, and a process has one: the scenarios of
/// one process play one at a time (`ScenarioGate`), which made `swift test`
/// take a minute, nearly all of it waiting on a simulated network (the whole
/// run used 8 s of CPU in 62 s). So `swift test` runs these suites in child
/// processes, one per lane, each with its own main queue, while it runs the
/// rest itself: the lanes' scenarios play at the same time as its own.
///
/// Lanes are on only for a whole run, the README's `swift test`. With
/// `--filter` or `--skip` (a developer picking tests, the Thread Sanitizer
/// leg, or a lane's own child process) every suite runs in the one process:
/// a filtered run selects exactly what it names, and a child never starts
/// lanes of its own.
///
/// Suites go together when they read the same runs (`SharedRuns` shares a run
/// within a process only). Measured on two cores, each lane alone: 17 s, 16 s
/// and 17 s; what stays in the main process (steps 1-3, the scoreboard and the
/// bug matrix, which share most of their runs) 22 s.
enum Lanes {
    static let suites: [[Any.Type]] = [
        [Lesson04Tests.self, Lesson05Tests.self, HarnessTests.self, PerformanceTests.self],
        [Lesson06Tests.self, Lesson07Tests.self],
        [
            FaultMatrixTests.self, StressTests.self, Lesson08Tests.self, Lesson08ExerciseTests.self,
            Lesson09Tests.self, Lesson09ExerciseTests.self,
        ],
    ]

    /// Lanes are numbered from 1, as their output says.
    static var numbers: ClosedRange<Int> { 1...suites.count }

    /// Whether this process is a whole `swift test` run, which hands the lanes' suites to child processes.
    static let areOn: Bool = {
        let arguments = CommandLine.arguments
        return arguments.contains("--testing-library") && !arguments.contains("--filter")
            && !arguments.contains("--skip")
    }()

    static func lane(of suite: String) -> Int? {
        numbers.first { names(inLane: $0).contains(suite) }
    }

    static func names(inLane lane: Int) -> [String] {
        suites[lane - 1].map { String(describing: $0) }
    }

    /// The `--filter` that selects a lane's suites: a test's ID is "Module.Suite/test()".
    static func filter(forLane lane: Int) -> String {
        let module = String(reflecting: suites[lane - 1][0]).prefix { $0 != "." }
        return "^\(module)\\.(\(names(inLane: lane).joined(separator: "|")))/"
    }
}

extension Trait where Self == ConditionTrait {
    /// For a suite listed in `Lanes` (by its type's name: its own attribute
    /// cannot refer to its type): skipped in a whole run's main process, where
    /// `LaneTests` plays it in a child process instead. A name missing from
    /// `Lanes` is an error, not a suite quietly run twice.
    static func inItsLane(_ suite: String) -> Self {
        .disabled("runs in a process of its own: lane \(Lanes.lane(of: suite) ?? 0) of LaneTests") {
            guard Lanes.lane(of: suite) != nil else { throw TestFailure("\(suite) is in none of Lanes.suites") }
            return Lanes.areOn
        }
    }
}

/// Plays each lane's suites in a child process: this same test binary, filtered
/// to them. Their results are printed here as they come; a lane whose run fails
/// fails here, naming the tests that failed.
@Suite(.enabled(if: Lanes.areOn, "a filtered run plays every suite in its own process"))
struct LaneTests {
    @Test(arguments: Lanes.numbers)
    func lanePasses(_ lane: Int) async throws {
        let names = Lanes.names(inLane: lane)
        let run = try await LaneProcess.run(
            arguments: ["--testing-library", "swift-testing", "--filter", Lanes.filter(forLane: lane)],
            label: "lane \(lane)")
        #expect(
            run.status == 0,
            "lane \(lane) (\(names.joined(separator: ", "))) ended with status \(run.status):\n\(run.failures.joined(separator: "\n"))"
        )
        // A name the filter did not match would pass with nothing run.
        for name in names {
            #expect(run.finishedSuites.contains(name), "lane \(lane) did not run \(name)")
        }
    }
}

/// One child run of this test binary, its output passed on line by line.
struct LaneProcess {
    let status: Int32
    /// The suites whose end the child reported (passed or failed).
    let finishedSuites: Set<String>
    /// Its lines reporting a failure.
    let failures: [String]

    static func run(arguments: [String], label: String) async throws -> LaneProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        // Swift Testing reports on standard error.
        let output = Pipe()
        process.standardError = output
        try process.run()
        // Read and waited for on a thread of its own, not a dispatch worker:
        // one blocked for the whole lane would be one fewer for the scenarios
        // of this process.
        return await withCheckedContinuation { done in
            Thread.detachNewThread {
                var suites = Set<String>()
                var failures: [String] = []
                for line in LineReader(output.fileHandleForReading) {
                    let plain = line.replacing(/\u{1B}\[[0-9;]*m/, with: "")  // its colours, if any
                    if let suite = plain.firstMatch(of: /Suite (\w+) (passed|failed) after/) {
                        suites.insert(String(suite.1))
                    }
                    if plain.hasPrefix("✘") { failures.append(plain) }
                    // The child's closing line would read as this run's; it says which run it closes.
                    let shown = plain.contains("Test run with") ? "\(line) (\(label))" : line
                    FileHandle.standardError.write(Data((shown + "\n").utf8))
                }
                process.waitUntilExit()
                done.resume(
                    returning: LaneProcess(
                        status: process.terminationStatus, finishedSuites: suites, failures: failures))
            }
        }
    }
}

/// The lines of a file handle, read as they arrive, until it closes.
struct LineReader: Sequence, IteratorProtocol {
    private let handle: FileHandle
    private var buffer = Data()
    private var ended = false

    init(_ handle: FileHandle) { self.handle = handle }

    mutating func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                return String(decoding: line, as: UTF8.self)
            }
            if ended {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
            let chunk = handle.availableData
            if chunk.isEmpty { ended = true } else { buffer.append(chunk) }
        }
    }
}
