import Foundation
import TableKit

/// What a controller shows and runs, found among its stored properties (its
/// class's and its superclasses', a `lazy var` and an array of views
/// included) the way Interface Builder connects outlets: so the harness reads
/// a screen without the screen reporting anything.
public struct Outlets: @unchecked Sendable {
    /// In the order they are declared, a subclass's before its superclass's.
    public let labels: [Label]
    public let buttons: [Button]
    /// The operation queues it owns (not the main queue).
    public let queues: [OperationQueue]

    public init(of controller: AnyObject) {
        var labels: [Label] = []
        var buttons: [Button] = []
        var mirror: Mirror? = Mirror(reflecting: controller)
        while let current = mirror {
            for child in current.children {
                // The type first: `as?` on a Swift array would bridge it to check.
                guard let value = Self.unwrapped(child.value) else { continue }
                let type = type(of: value)
                if type is Label.Type, let label = value as? Label { labels.append(label) }
                if type is [Label].Type, let all = value as? [Label] { labels += all }
                if type is Button.Type, let button = value as? Button { buttons.append(button) }
                if type is [Button].Type, let all = value as? [Button] { buttons += all }
            }
            mirror = current.superclassMirror
        }
        self.labels = labels
        self.buttons = buttons
        queues = Self.operationQueues(in: controller)
    }

    /// The operation queues among `object`'s stored properties (its class's
    /// and its superclasses'), a `lazy var` included, but the main queue.
    /// Read once, before the screen's code runs.
    static func operationQueues(in object: AnyObject) -> [OperationQueue] {
        var queues: [OperationQueue] = []
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            for child in current.children {
                // The type first: `as?` on a Swift array would bridge it to check.
                guard let value = unwrapped(child.value), type(of: value) is OperationQueue.Type,
                    let queue = value as? OperationQueue, queue !== OperationQueue.main
                else { continue }
                queues.append(queue)
            }
            mirror = current.superclassMirror
        }
        return queues
    }

    /// A lazy property is stored as an Optional: look inside it.
    static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.map { unwrapped($0.value) } ?? nil
    }
}
