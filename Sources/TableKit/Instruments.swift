import Foundation
import HarnessSync

/// What Xcode's Main Thread Checker and Allocations instrument would tell you
/// about one scenario: UI touched off the main queue, and the images alive.
///
/// The harness installs a fresh instance as `current` for each scenario and
/// runs one scenario at a time per process, so nothing one run does is counted
/// in another. An image remembers the instruments it was created under and
/// signs out of those when it is freed, even after its scenario is over; a UI
/// object records its touches in the instruments it was made under, so a late
/// download of one run that touches its cell is not counted in the next.
///
/// Its locks are hidden from Thread Sanitizer (`Locked`): download threads make
/// images, and the main queue touches the UI.
public final class Instruments: @unchecked Sendable {
    private static let installedLock = Locked()
    nonisolated(unsafe) private static var installed: Instruments?

    /// The instruments of the scenario running now, if any.
    public static var current: Instruments? {
        get { installedLock.withLock { installed } }
        set { installedLock.withLock { installed = newValue } }
    }

    private struct State {
        var violations: [String] = []
        var uiTouches = 0
        var liveImageBytes: [ObjectIdentifier: Int] = [:]
    }

    private let lock = Locked()
    private var state = State()

    public init() {}

    public func recordMainQueueViolation(_ what: String) {
        lock.withLock { state.violations.append(what) }
    }

    func recordUITouch() {
        lock.withLock { state.uiTouches += 1 }
    }

    /// How many times any UI object was touched, on any queue: when it has
    /// not moved between two looks, nothing touched the screen in between.
    public var uiTouches: Int { lock.withLock { state.uiTouches } }

    /// Every UI access made off the main queue, in order.
    public var mainQueueViolations: [String] { lock.withLock { state.violations } }

    func imageCreated(_ image: ObjectIdentifier, bytes: Int) {
        lock.withLock { state.liveImageBytes[image] = bytes }
    }

    func imageFreed(_ image: ObjectIdentifier) {
        _ = lock.withLock { state.liveImageBytes.removeValue(forKey: image) }
    }

    /// The pixel bytes of every decoded image still alive.
    public var liveImageBytes: Int { lock.withLock { state.liveImageBytes.values.reduce(0, +) } }

    /// The bytes of live images other than `excluded` (for example the ones the
    /// table's cells hold): what the app itself keeps.
    public func liveImageBytes(excluding excluded: Set<ObjectIdentifier>) -> Int {
        lock.withLock {
            state.liveImageBytes.reduce(0) { excluded.contains($1.key) ? $0 : $0 + $1.value }
        }
    }
}
