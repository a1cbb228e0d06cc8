import Foundation
import HarnessSync

/// A fetch that blocks no thread, as `URLSession`'s data tasks do: the body
/// arrives in chunks over the request's time, each reported to `progress`,
/// then the whole to `completion`, all on the network's delivery queue (a
/// session's delegate queue). `cancel()` ends it with `NetworkError.cancelled`;
/// nothing is reported after that.
public final class NetworkTask: @unchecked Sendable {
    /// How many pieces a body arrives in.
    static let chunks = 4

    public let url: URL
    private let lock = Locked()
    private var hasEnded = false
    private var wasCancelled = false
    /// The clock's count of this fetch in flight (`NetworkClock.startTask`), once taken.
    private var clockToken: Int?
    /// Logs the end, ends the clock's count and calls the completion: at once
    /// when `onDeliveryQueue`, otherwise by way of the delivery queue.
    private let end:
        @Sendable (_ outcome: Result<Data, NetworkError>, _ onDeliveryQueue: Bool, _ clockToken: Int?) -> Void

    init(url: URL, end: @escaping @Sendable (Result<Data, NetworkError>, Bool, Int?) -> Void) {
        self.url = url
        self.end = end
    }

    public var isCancelled: Bool { lock.withLock { wasCancelled } }

    /// Stops the fetch. Its completion is called once, with `.cancelled`, if
    /// it had not ended already.
    public func cancel() {
        let ending = lock.withLock { () -> (ends: Bool, token: Int?) in
            guard !hasEnded else { return (false, nil) }
            hasEnded = true
            wasCancelled = true
            return (true, clockToken)
        }
        if ending.ends { end(.failure(.cancelled), false, ending.token) }
    }

    /// Ends the fetch with `outcome`, on the delivery queue, unless it has ended already.
    func finish(_ outcome: Result<Data, NetworkError>) {
        let ending = lock.withLock { () -> (ends: Bool, token: Int?) in
            guard !hasEnded else { return (false, nil) }
            hasEnded = true
            return (true, clockToken)
        }
        if ending.ends { end(outcome, true, ending.token) }
    }

    /// Keeps the clock's count of the fetch, to end with it; false if the
    /// fetch has ended already (its end found no count to end).
    func keep(_ token: Int) -> Bool {
        lock.withLock {
            if !hasEnded { clockToken = token }
            return !hasEnded
        }
    }

    /// Whether a piece of the body may still be reported.
    var isRunning: Bool { lock.withLock { !hasEnded } }
}

extension SlowNetwork {
    /// Fetches `url` without blocking the calling thread. The answer takes the
    /// same time as `data(contentsOf:)`'s, drawn from the same seed, and fails
    /// or breaks the same way: the first half of it waiting for the response,
    /// the second the body arriving in `NetworkTask.chunks` equal pieces.
    /// `progress` gets the bytes received so far and the body's size;
    /// `completion` the body or the error. Both run on the delivery queue.
    public func fetch(
        _ url: URL, progress: @escaping @Sendable (_ received: Int, _ expected: Int) -> Void,
        completion: @escaping @Sendable (Result<Data, NetworkError>) -> Void
    ) -> NetworkTask {
        let key = url.absoluteString
        let request = begin(key, at: clock.now, thread: Request.noThread)
        let clock = clock
        let queue = deliveryQueue
        let task = NetworkTask(url: url) { [self] outcome, onDeliveryQueue, token in
            // The log and the clock learn of the end before the caller does.
            switch outcome {
            case .success(let body): end(request.id, outcome: request.bodyOutcome, bytes: body.count)
            case .failure(let error): end(request.id, outcome: .failed, bytes: 0, error: error.description)
            }
            if let token { clock.finishTask(token) }
            if onDeliveryQueue {
                completion(outcome)
            } else {
                clock.run(at: clock.now, on: queue) { completion(outcome) }
            }
        }
        deliver(request, of: task, progress: progress)
        // Counted in flight only once its deliveries are asked for: a story
        // clock that sees a fetch in flight with nothing due takes the app
        // for idle and moves on without it (planning a very long URL can
        // take longer than the whole story).
        let token = clock.startTask()
        if !task.keep(token) { clock.finishTask(token) }
        return task
    }

    /// Asks the clock for the fetch's answer: its pieces and its end, or its failure.
    private func deliver(
        _ request: Begun, of task: NetworkTask, progress: @escaping @Sendable (_ received: Int, _ expected: Int) -> Void
    ) {
        let queue = deliveryQueue
        let due = request.start + request.duration
        if let failure = request.failure {
            clock.run(at: due, on: queue) { task.finish(.failure(failure)) }
            return
        }
        let body = request.body
        let half = request.duration.nanoseconds / 2
        let pieces = NetworkTask.chunks
        for piece in 1...pieces {
            let at = request.start + StoryTime(nanoseconds: half + half * Int64(piece) / Int64(pieces))
            let received = body.count * piece / pieces
            clock.run(at: at, on: queue) { [self] in
                guard task.isRunning else { return }
                if isOffline {
                    task.finish(.failure(.offline))
                    return
                }
                progress(received, body.count)
                if piece == pieces { task.finish(.success(body)) }
            }
        }
    }
}
