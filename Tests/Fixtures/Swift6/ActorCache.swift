// expect: compiles
// The fix, as step 11 writes it: an actor owns the cache; the main actor shows what it returns.
import Foundation

final class Image: Sendable {}

actor ImageCache {
    private var images: [String: Image] = [:]

    func image(for icon: String) -> Image {
        if let image = images[icon] { return image }
        let image = Image()
        images[icon] = image
        return image
    }
}

@MainActor final class AppsViewController {
    let cache = ImageCache()
    var shown: [String: Image] = [:]

    func download(_ icon: String) {
        Task {
            let image = await cache.image(for: icon)
            shown[icon] = image
        }
    }
}
