// expect: compiles
// What Swift 6 does not catch: step 5's retain cycle. A stored escaping closure and a stored task both hold
// `self` strongly; the controller is never freed, and the compiler says nothing.
import Foundation

@MainActor final class AppsViewController {
    var onFinish: (() -> Void)?
    var load: Task<Void, Never>?
    var finished = 0

    func start() {
        onFinish = { self.finished += 1 }
        load = Task { self.finished += 1 }
    }
}
