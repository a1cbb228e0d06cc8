import Foundation

/// One app of the list: the model the tutorial builds from `apps.plist`.
/// `Decodable` is Swift's answer to the tutorials' KVC `setValuesForKeysWithDictionary:`.
struct AppInfo: Decodable {
    let name: String
    let icon: String
    let download: String
}
