import Synchronization

/// What Xcode's Main Thread Checker and Allocations instrument would tell you
/// about one scenario: UI touched off the main queue, and the images alive.
///
/// The harness installs a fresh instance as `current` for each scenario and
/// runs one scenario at a time per process, so nothing one run does is counted
/// in another. An image remembers the instruments it was created under and
/// signs out of those when it is freed, even after its scenario is over.
public final class Instruments: Sendable {
    private static let installed = Mutex<Instruments?>(nil)

    /// The instruments of the scenario running now, if any.
    public static var current: Instruments? {
        get { installed.withLock { $0 } }
        set { installed.withLock { $0 = newValue } }
    }

    private struct State {
        var violations: [String] = []
        var liveImageBytes: [ObjectIdentifier: Int] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public func recordMainQueueViolation(_ what: String) {
        state.withLock { $0.violations.append(what) }
    }

    /// Every UI access made off the main queue, in order.
    public var mainQueueViolations: [String] { state.withLock { $0.violations } }

    func imageCreated(_ image: ObjectIdentifier, bytes: Int) {
        state.withLock { $0.liveImageBytes[image] = bytes }
    }

    func imageFreed(_ image: ObjectIdentifier) {
        _ = state.withLock { $0.liveImageBytes.removeValue(forKey: image) }
    }

    /// The pixel bytes of every decoded image still alive.
    public var liveImageBytes: Int { state.withLock { $0.liveImageBytes.values.reduce(0, +) } }

    /// The bytes of live images other than `excluded` (for example the ones the
    /// table's cells hold): what the app itself keeps.
    public func liveImageBytes(excluding excluded: Set<ObjectIdentifier>) -> Int {
        state.withLock { state in
            state.liveImageBytes.reduce(0) { excluded.contains($1.key) ? $0 : $0 + $1.value }
        }
    }
}
