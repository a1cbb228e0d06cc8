import Foundation
import SlowNetwork

// An operation in the shape of the blog posts' (see PortedTutorialTests):
// this file is, to the checks, the learner's only file.

/// The blogs' `AsyncOperation` base class: a `State` whose `keyPath` names
/// the flag it sets, announced around every change by the property's
/// observers; `isAsynchronous` true; a `start()` that finishes at once when
/// cancelled and otherwise runs `main()`; a subclass that calls `finish()`
/// when its work is done. (No lock: the blogs' base class has none.)
class AsyncOperation: Operation, @unchecked Sendable {
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

    override var isReady: Bool { super.isReady && state == .ready }
    override var isExecuting: Bool { state == .executing }
    override var isFinished: Bool { state == .finished }
    override var isAsynchronous: Bool { true }

    override func start() {
        if isCancelled {
            state = .finished
            return
        }
        main()
        state = .executing
    }

    func finish() {
        state = .finished
    }
}

/// A download on the base class: the fetch blocks no thread; its answer
/// goes to the completion handler, then the operation finishes.
class BlogDownloadOperation: AsyncOperation, @unchecked Sendable {
    let url: URL
    let network: SlowNetwork
    let progress: @Sendable (Int, Int) -> Void
    let completion: @Sendable (Result<Data, NetworkError>) -> Void
    var task: NetworkTask?

    init(
        url: URL, network: SlowNetwork, progress: @escaping @Sendable (Int, Int) -> Void,
        completion: @escaping @Sendable (Result<Data, NetworkError>) -> Void
    ) {
        self.url = url
        self.network = network
        self.progress = progress
        self.completion = completion
    }

    override func main() {
        task = network.fetch(url, progress: progress) { [weak self] result in
            guard let self else { return }
            self.completion(result)
            self.finish()
        }
    }

    override func cancel() {
        super.cancel()
        task?.cancel()
    }
}
