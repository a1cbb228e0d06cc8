// expect: main actor-isolated property 'imageCache' can not be mutated from a nonisolated context
// The same cache on a `@MainActor` class (as a UIKit view controller is), written from a detached task.
import Foundation

final class Image: Sendable {}

@MainActor final class AppsViewController {
    var imageCache: [String: Image] = [:]

    func download(_ icon: String) {
        Task.detached {
            let image = Image()
            self.imageCache[icon] = image
        }
    }
}
