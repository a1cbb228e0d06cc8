// expect: capture of 'self' with non-Sendable type 'AppsViewController' in a '@Sendable' closure
// The same with GCD: the cache written from a block on a global queue.
import Foundation

final class Image {}

final class AppsViewController {
    var imageCache: [String: Image] = [:]

    func download(_ icon: String) {
        DispatchQueue.global().async {
            self.imageCache[icon] = Image()
        }
    }
}
