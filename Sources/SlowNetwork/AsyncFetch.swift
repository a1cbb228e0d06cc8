import Foundation
import HarnessSync

extension SlowNetwork {
    /// Fetches `url` the Swift-concurrency way, `URLSession.data(for:)`'s
    /// shape: the calling task suspends, holding no thread, until the
    /// network's clock says the answer is due, then resumes with the body or
    /// the error. The answer takes the same time as `data(contentsOf:)`'s,
    /// drawn from the same seed, and fails or breaks the same way.
    ///
    /// Cancelling the calling task ends the request at once: the log records
    /// it as failed with `NetworkError.cancelled`, and the caller gets
    /// `CancellationError`, as `URLSession` throws `URLError.cancelled`.
    public func data(for url: URL) async throws -> Data {
        let key = url.absoluteString
        let clock = clock
        let token = clock.startTask()
        let request = begin(key, at: clock.now, thread: Request.noThread)
        let response = PendingAnswer<Data> { [self] outcome in
            switch outcome {
            case .success(let body): end(request.id, outcome: request.bodyOutcome, bytes: body.count)
            case .failure(let error): end(request.id, outcome: .failed, bytes: 0, error: error.description)
            }
            clock.finishTask(token)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
                guard response.wait(with: continuation) else { return }
                // A network already shut down answers at once (its clock runs nothing more).
                if request.failure == .shutDown { return response.give(.failure(.shutDown)) }
                clock.run(at: request.start + request.duration, on: deliveryQueue) { [self] in
                    if let failure = request.failure ?? (isOffline ? NetworkError.offline : nil) {
                        response.give(.failure(failure))
                    } else {
                        response.give(.success(request.body))
                    }
                }
            }
        } onCancel: {
            response.give(.failure(.cancelled))
        }
    }

    /// A `Clock` that keeps this network's time: `Task.sleep(for:clock:)` on
    /// it sleeps story time in a scenario, so a retry's back-off or a
    /// debounce waits as long in every run (`Task.sleep` on the default clock
    /// is a wall-time wait that nothing in the story sees).
    public var storyClock: StoryTimeClock { StoryTimeClock(clock: clock, queue: deliveryQueue) }
}

/// What one suspended caller waits for, given once: by its due time, or by
/// the caller's cancellation, whichever comes first; the other finds it
/// given. `NetworkError.cancelled` reaches the caller as `CancellationError`.
private final class PendingAnswer<Value: Sendable>: @unchecked Sendable {
    private let lock = Locked(.seen)
    private var continuation: CheckedContinuation<Value, any Error>?
    private var answer: Result<Value, NetworkError>?
    /// Called once with the answer, before the caller resumes (the log and
    /// the clock learn of the end before the caller does).
    private let onAnswer: @Sendable (Result<Value, NetworkError>) -> Void

    init(onAnswer: @escaping @Sendable (Result<Value, NetworkError>) -> Void = { _ in }) {
        self.onAnswer = onAnswer
    }

    /// Keeps `continuation` for the answer. False (and the continuation
    /// resumed at once) if the answer came first: the caller was cancelled
    /// before it suspended.
    func wait(with continuation: CheckedContinuation<Value, any Error>) -> Bool {
        let answer = lock.withLock { () -> Result<Value, NetworkError>? in
            if self.answer == nil { self.continuation = continuation }
            return self.answer
        }
        guard let answer else { return true }
        Self.resume(continuation, with: answer)
        return false
    }

    func give(_ answer: Result<Value, NetworkError>) {
        let waiting = lock.withLock { () -> CheckedContinuation<Value, any Error>?? in
            guard self.answer == nil else { return .none }
            self.answer = answer
            defer { continuation = nil }
            return .some(continuation)
        }
        guard case .some(let continuation) = waiting else { return }
        onAnswer(answer)
        if let continuation { Self.resume(continuation, with: answer) }
    }

    private static func resume(
        _ continuation: CheckedContinuation<Value, any Error>, with answer: Result<Value, NetworkError>
    ) {
        switch answer {
        case .success(let value): continuation.resume(returning: value)
        case .failure(.cancelled): continuation.resume(throwing: CancellationError())
        case .failure(let error): continuation.resume(throwing: error)
        }
    }
}

/// The network's time as a Swift `Clock` (see `SlowNetwork.storyClock`). A
/// sleeper is woken by the network's clock at its deadline, on the network's
/// delivery queue, or at once with `CancellationError` if its task is cancelled.
public struct StoryTimeClock: Clock {
    public struct Instant: InstantProtocol {
        public let time: StoryTime

        public init(_ time: StoryTime) {
            self.time = time
        }

        public func advanced(by duration: Duration) -> Instant {
            Instant(time + StoryTime(nanoseconds: Self.nanoseconds(duration)))
        }

        public func duration(to other: Instant) -> Duration {
            .nanoseconds(other.time.nanoseconds - time.nanoseconds)
        }

        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.time < rhs.time }

        private static func nanoseconds(_ duration: Duration) -> Int64 {
            duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
        }
    }

    private let clock: any NetworkClock
    private let queue: DispatchQueue

    init(clock: any NetworkClock, queue: DispatchQueue) {
        self.clock = clock
        self.queue = queue
    }

    public var now: Instant { Instant(clock.now) }

    /// Story time is counted in whole nanoseconds.
    public var minimumResolution: Duration { .nanoseconds(1) }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let alarm = PendingAnswer<Void>()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                guard alarm.wait(with: continuation) else { return }
                clock.run(at: deadline.time, on: queue) { alarm.give(.success(())) }
            }
        } onCancel: {
            alarm.give(.failure(.cancelled))
        }
    }
}
