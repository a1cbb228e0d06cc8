// expect: capture of 'self' with non-Sendable type 'AppsViewController' in a '@Sendable' closure
// Step 4 as the tutorial writes it: the cache written from an operation's block.
import Foundation

final class Image {}

final class AppsViewController {
    let queue = OperationQueue()
    var imageCache: [String: Image] = [:]

    func download(_ icon: String) {
        queue.addOperation {
            self.imageCache[icon] = Image()
        }
    }
}
