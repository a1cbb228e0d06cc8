import Foundation
import SlowNetwork

// Operations in the shape of learners' slips on the blogs' base class (see
// PortedTutorialTests and PortedAsyncOperation.swift): this file is, to the
// checks, the learner's only file.

/// What each download below is made from.
struct DownloadRequest {
    let url: URL
    let network: SlowNetwork
    let progress: @Sendable (Int, Int) -> Void
    let completion: @Sendable (Result<Data, NetworkError>) -> Void
}

/// The base class with its flags kept in a stored `Bool` each, set in
/// `start()` and `finish()` with nothing said around them.
class QuietAsyncOperation: Operation, @unchecked Sendable {
    private var executing = false
    private var finished = false

    override var isExecuting: Bool { executing }
    override var isFinished: Bool { finished }
    override var isAsynchronous: Bool { true }

    override func start() {
        guard !isCancelled else {
            finished = true
            return
        }
        executing = true
        main()
    }

    func finish() {
        executing = false
        finished = true
    }
}

final class QuietDownloadOperation: QuietAsyncOperation, @unchecked Sendable {
    let request: DownloadRequest

    init(_ request: DownloadRequest) {
        self.request = request
    }

    override func main() {
        _ = request.network.fetch(request.url, progress: request.progress) { result in
            self.request.completion(result)
            self.finish()
        }
    }
}

/// The blogs' `State` base class, but a `start()` that leaves at once when
/// cancelled, without finishing.
class LeavingAsyncOperation: Operation, @unchecked Sendable {
    enum State: String {
        case ready, executing, finished

        var keyPath: String { "is" + rawValue.capitalized }
    }

    var state = State.ready {
        willSet {
            willChangeValue(forKey: newValue.keyPath)
            willChangeValue(forKey: state.keyPath)
        }
        didSet {
            didChangeValue(forKey: oldValue.keyPath)
            didChangeValue(forKey: state.keyPath)
        }
    }

    override var isExecuting: Bool { state == .executing }
    override var isFinished: Bool { state == .finished }
    override var isAsynchronous: Bool { true }

    override func start() {
        guard !isCancelled else { return }
        state = .executing
        main()
    }
}

final class LeavingDownloadOperation: LeavingAsyncOperation, @unchecked Sendable {
    let request: DownloadRequest

    init(_ request: DownloadRequest) {
        self.request = request
    }

    override func main() {
        _ = request.network.fetch(request.url, progress: request.progress) { result in
            self.request.completion(result)
            self.state = .finished
        }
    }
}

/// The blogs' download (PortedAsyncOperation.swift) with one line
/// changed: a cancelled download's answer is dropped, and with it the call
/// to `finish()`.
final class DroppingDownloadOperation: BlogDownloadOperation, @unchecked Sendable {
    override func main() {
        task = network.fetch(url, progress: progress) { [weak self] result in
            guard let self, !self.isCancelled else { return }
            self.completion(result)
            self.finish()
        }
    }
}
