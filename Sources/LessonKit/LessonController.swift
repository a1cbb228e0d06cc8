import Foundation
import SlowNetwork
import TableKit

/// What the harness hands a lesson's controller: the app's world.
public struct LessonEnvironment: Sendable {
    /// The simulated internet; `network.data(contentsOf:)` is the tutorials'
    /// `Data(contentsOf:)`.
    public let network: SlowNetwork
    /// The plist the controller loads its model from.
    public let catalogURL: URL
    /// This step's own Caches folder (the "sandbox"), for steps with a disk cache.
    public let cachesDirectory: URL

    public init(network: SlowNetwork, catalogURL: URL, cachesDirectory: URL) {
        self.network = network
        self.catalogURL = catalogURL
        self.cachesDirectory = cachesDirectory
    }
}

/// A step's view controller: the code the tutorial evolves.
public protocol LessonController: TableViewController {
    init(environment: LessonEnvironment)

    /// Numbers only this step can know (stale deliveries, operations started
    /// while dragging…), added to the report's `measures`.
    var measures: [String: Double] { get }

    /// Operation queues the controller's work runs on that are not its own
    /// stored properties: a library's (step 10's image loader). The harness
    /// watches them as it watches the queues it finds among the properties.
    var operationQueues: [OperationQueue] { get }
}

extension LessonController {
    public var measures: [String: Double] { [:] }
    public var operationQueues: [OperationQueue] { [] }
}
