// expect: passing closure as a 'sending' parameter risks causing data races
// Step 4's dictionary, written from a task that runs on the shared pool.
import Foundation

final class Image {}

final class AppsViewController {
    var imageCache: [String: Image] = [:]

    func download(_ icon: String) {
        Task.detached {
            let image = Image()
            self.imageCache[icon] = image
        }
    }
}
