import Foundation
import LessonChecks
import LessonKit
import SlowNetwork
import Testing

@testable import Exercise10Start
@testable import WebImage

/// Exercise 10, proven: its checks fail on the starting code (an asynchronous
/// operation with no state of its own) and pass on the library's operation,
/// and each check catches the mistake it is named after, alone.
@Suite struct Lesson10ExerciseTests {
    @Test func theStartingCodeStallsIsNeverHeardAndIgnoresAnEarlyCancel() async {
        let results = await AsyncOperationChecks.check {
            Exercise10Start.ImageDownloadOperation(url: $0, network: $1, progress: $2, completion: $3)
        }
        ExerciseProof.expectEveryBugPresent(results)
        #expect(ExerciseProof.result(results, AsyncOperationChecks.finishes)?.measured.contains("stalled") == true)
    }

    @Test func theLibrarysOperationSolvesIt() async {
        let results = await AsyncOperationChecks.check {
            WebImage.ImageDownloadOperation(url: $0, network: $1, progress: $2, completion: $3)
        }
        ExerciseProof.expectSolved(results)
    }

    /// One mistake at a time, each caught by its own check (a silent
    /// operation cancelled before it starts is not heard either).
    @Test(arguments: [
        (FaultyDownloadOperation.Fault.neverFinishes, [AsyncOperationChecks.finishes, AsyncOperationChecks.announces]),
        (.silent, [AsyncOperationChecks.announces, AsyncOperationChecks.cancelledBeforeStart]),
        (.announcesBeforeTheChange, [AsyncOperationChecks.announces, AsyncOperationChecks.cancelledBeforeStart]),
        (.returnsWhenCancelled, [AsyncOperationChecks.cancelledBeforeStart]),
    ])
    func eachMistakeIsCaughtByItsCheck(_ fault: FaultyDownloadOperation.Fault, failing: [BugText]) async {
        let results = await AsyncOperationChecks.check {
            FaultyDownloadOperation(fault: fault, url: $0, network: $1, progress: $2, completion: $3)
        }
        for result in results {
            let shouldFail = failing.contains { $0.name == result.bug }
            #expect(result.passed == !shouldFail, "\(fault): \(result.bug): \(result.measured)")
        }
    }

    /// `lessons solution 10` shows the state handling, and only that.
    @Test func theSolutionIsTheStateHandlingAlone() async throws {
        let root = try ExerciseCommandTests.sandbox()
        defer { try? FileManager.default.removeItem(at: root) }
        let run = try await ExerciseCommandTests.lessons(["solution", "10", "--force"], root: root)
        #expect(run.status == 0)
        let added = run.standardOutput.split(separator: "\n").filter { $0.hasPrefix("+ ") || $0.hasPrefix("+    ") }
        #expect(added.contains { $0.contains("public override var isFinished: Bool") })
        #expect(
            added.contains { $0.contains("guard !isCancelled else { return complete(with: .failure(.cancelled)) }") })
        #expect(added.contains { $0.contains("move(to: .finished)") })
        #expect(!added.contains { $0.contains("network.fetch") }, "the download itself is the same")
        #expect(run.standardOutput.contains("--- Sources/Exercise10Start/ImageDownloadOperation.swift"))
        #expect(!run.standardOutput.contains("ImageDownloader.swift"))
    }

    /// The exercise's file is the library's minus the state handling: the
    /// same fetch, the same hand-over, so what the checks measure is the
    /// state alone.
    @Test func theStartingCodeIsTheLibrarysOperationWithoutItsState() throws {
        let start = try String(
            contentsOf: Rig.packageRoot.appendingPathComponent("Sources/Exercise10Start/ImageDownloadOperation.swift"),
            encoding: .utf8)
        let library = try String(
            contentsOf: Rig.packageRoot.appendingPathComponent("Sources/WebImage/ImageDownloadOperation.swift"),
            encoding: .utf8)
        for absent in [
            "isExecuting: Bool", "isFinished: Bool", "isAsynchronous: Bool", "didChangeValue(forKey: \"isFinished\")",
            "guard !isCancelled",
        ] {
            #expect(!start.contains(absent), "\(absent)")
            #expect(library.contains(absent), "\(absent)")
        }
        for (piece, end) in [
            ("public init(", "}"), ("let task = network.fetch(url)", "task.cancel()"),
            ("let isFirst = lock.withLock {", "completion(result)"),
        ] {
            let body = { (text: String) in text.components(separatedBy: piece).last?.components(separatedBy: end).first
            }
            #expect(body(start) == body(library), "\(piece) differs")
        }
    }
}

/// The library's operation with one mistake, for the checks to catch.
final class FaultyDownloadOperation: Operation, @unchecked Sendable {
    enum Fault: Sendable, CustomTestStringConvertible {
        /// Says executing, never finished once it has downloaded.
        case neverFinishes
        /// Changes its state without `willChangeValue`/`didChangeValue`.
        case silent
        /// Calls `didChangeValue` before the new value is set.
        case announcesBeforeTheChange
        /// Cancelled before it starts: returns from `start()` without finishing.
        case returnsWhenCancelled
        /// Cancelled before it starts: downloads all the same, then finishes.
        case fetchesWhenCancelled
        /// Right, on a slow machine: takes 0.3 s of wall time between
        /// delivering and saying it finished.
        case slowToSayFinished

        var testDescription: String { "\(self)" }
    }

    private enum State {
        case ready, executing, finished
    }

    let fault: Fault
    let url: URL
    let network: SlowNetwork
    let progress: @Sendable (Int, Int) -> Void
    let completion: @Sendable (Result<Data, NetworkError>) -> Void
    private let lock = NSLock()
    private var state = State.ready
    private var task: NetworkTask?
    private var hasCompleted = false

    init(
        fault: Fault, url: URL, network: SlowNetwork, progress: @escaping @Sendable (Int, Int) -> Void,
        completion: @escaping @Sendable (Result<Data, NetworkError>) -> Void
    ) {
        self.fault = fault
        self.url = url
        self.network = network
        self.progress = progress
        self.completion = completion
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { lock.withLock { state == .executing } }
    override var isFinished: Bool { lock.withLock { state == .finished } }

    private func move(to new: State) {
        switch fault {
        case .silent:
            lock.withLock { state = new }
        case .announcesBeforeTheChange:
            didChangeValue(forKey: "isExecuting")
            didChangeValue(forKey: "isFinished")
            lock.withLock { state = new }
        default:
            willChangeValue(forKey: "isExecuting")
            willChangeValue(forKey: "isFinished")
            lock.withLock { state = new }
            didChangeValue(forKey: "isExecuting")
            didChangeValue(forKey: "isFinished")
        }
    }

    override func start() {
        if isCancelled {
            switch fault {
            case .returnsWhenCancelled: return
            case .fetchesWhenCancelled: break
            default: return complete(with: .failure(.cancelled))
            }
        }
        move(to: .executing)
        let task = network.fetch(url) { [self] in
            progress($0, $1)
        } completion: { [self] in
            complete(with: $0)
        }
        let stopNow = lock.withLock {
            if !hasCompleted { self.task = task }
            return hasCompleted
        }
        if stopNow || (isCancelled && fault != .fetchesWhenCancelled) {
            task.cancel()
            complete(with: .failure(.cancelled))
        }
    }

    override func cancel() {
        super.cancel()
        let (task, wasExecuting) = lock.withLock { (self.task, state == .executing) }
        task?.cancel()
        if wasExecuting { complete(with: .failure(.cancelled)) }
    }

    private func complete(with result: Result<Data, NetworkError>) {
        let isFirst = lock.withLock {
            defer { hasCompleted = true }
            task = nil
            return !hasCompleted
        }
        guard isFirst else { return }
        completion(result)
        if fault == .neverFinishes && result != .failure(.cancelled) { return }
        if fault == .slowToSayFinished { Thread.sleep(forTimeInterval: 0.3) }
        move(to: .finished)
    }
}
