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

/// A step's view controller: the code the tutorial evolves. The harness makes
/// it from its type, as UIKit makes a view controller from a storyboard; that
/// is why a controller class marks this initialiser `required`.
public protocol LessonController: TableViewController {
    init(environment: LessonEnvironment)

    /// Controllers the step's executable plays instead of this one when asked
    /// (`--naive-pool`): the step's bug kept on purpose, to compare against.
    static var variants: [LessonVariant] { get }
}

extension LessonController {
    public static var variants: [LessonVariant] { [] }
}

/// Another controller a step can play, chosen by a flag of its own: a table controller's, or a screen
/// controller's (`ScreenVariant`).
public struct StepVariant<Controller: Sendable>: Sendable {
    /// The flag, without its dashes: `naive-pool`.
    public let flag: String
    /// What the flag plays, for `--help`.
    public let help: String
    public let controller: Controller

    public init(flag: String, help: String, controller: Controller) {
        self.flag = flag
        self.help = help
        self.controller = controller
    }
}

/// A table controller a step can play instead of its own.
public typealias LessonVariant = StepVariant<any LessonController.Type>
