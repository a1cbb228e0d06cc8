import Foundation

/// UIKit adds `row` and `init(row:section:)` to `IndexPath`; Foundation on Linux does not.
extension IndexPath {
    public init(row: Int, section: Int = 0) {
        self.init(indexes: [section, row])
    }

    public var row: Int { self[1] }
    public var section: Int { self[0] }
}
