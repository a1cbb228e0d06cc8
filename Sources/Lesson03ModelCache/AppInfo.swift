import Foundation
import TableKit

/// One app of the list: the model the tutorial builds from `apps.plist`.
/// A class now, so that the downloaded icon can be kept on it.
final class AppInfo: Decodable {
    let name: String
    let icon: String
    let download: String
    /// The icon, once downloaded: the "model-held cache".
    var image: Image?

    private enum CodingKeys: String, CodingKey {
        case name, icon, download
    }
}
