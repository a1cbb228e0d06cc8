import Foundation
import HarnessSync

/// The labels and buttons made while a screen is being made, in the order
/// they were made: how the harness finds a screen's views without looking
/// inside the screen (its stored properties, a helper object, a `lazy var`
/// read in `init`, all alike). A subclass's stored properties are made before
/// its superclass's, so a subclass's views come first.
///
/// One screen is made at a time, on the main queue: collections do not nest.
public final class ViewsMade: @unchecked Sendable {
    public private(set) var labels: [Label] = []
    public private(set) var buttons: [Button] = []

    private static let lock = Locked(.seen)
    nonisolated(unsafe) private static var collecting: ViewsMade?

    /// Makes something (a screen) and returns it with the views made meanwhile.
    public static func collect<Made>(_ make: () throws -> Made) rethrows -> (Made, ViewsMade) {
        let views = ViewsMade()
        lock.withLock { collecting = views }
        defer { lock.withLock { collecting = nil } }
        return (try make(), views)
    }

    static func note(_ label: Label) {
        lock.withLock { collecting?.labels.append(label) }
    }

    static func note(_ button: Button) {
        lock.withLock { collecting?.buttons.append(button) }
    }
}
