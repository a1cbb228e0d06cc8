import Foundation
import UnseenSync

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
/// Guarded by `NSLock`, not Synchronization's `Mutex`, taken out of Thread
/// Sanitizer's sight (`unseen`): download threads make images, and a lock they
/// share with the main queue's UI touches would order them after the main
/// queue and hide their races (docs/architecture.md, "The race run").
public final class Instruments: @unchecked Sendable {
    private static let installedLock = NSLock()
    nonisolated(unsafe) private static var installed: Instruments?

    /// The instruments of the scenario running now, if any.
    public static var current: Instruments? {
        get { unseen(installedLock) { installed } }
        set { unseen(installedLock) { installed = newValue } }
    }

    private struct State {
        var violations: [String] = []
        var uiTouches = 0
        var liveImageBytes: [ObjectIdentifier: Int] = [:]
    }

    private let lock = NSLock()
    private var state = State()

    public init() {}

    public func recordMainQueueViolation(_ what: String) {
        unseen(lock) { state.violations.append(what) }
    }

    func recordUITouch() {
        unseen(lock) { state.uiTouches += 1 }
    }

    /// How many times any UI object was touched, on any queue: when it has
    /// not moved between two looks, nothing touched the screen in between.
    public var uiTouches: Int { unseen(lock) { state.uiTouches } }

    /// Every UI access made off the main queue, in order.
    public var mainQueueViolations: [String] { unseen(lock) { state.violations } }

    func imageCreated(_ image: ObjectIdentifier, bytes: Int) {
        unseen(lock) { state.liveImageBytes[image] = bytes }
    }

    func imageFreed(_ image: ObjectIdentifier) {
        _ = unseen(lock) { state.liveImageBytes.removeValue(forKey: image) }
    }

    /// The pixel bytes of every decoded image still alive.
    public var liveImageBytes: Int { unseen(lock) { state.liveImageBytes.values.reduce(0, +) } }

    /// The bytes of live images other than `excluded` (for example the ones the
    /// table's cells hold): what the app itself keeps.
    public func liveImageBytes(excluding excluded: Set<ObjectIdentifier>) -> Int {
        unseen(lock) {
            state.liveImageBytes.reduce(0) { excluded.contains($1.key) ? $0 : $0 + $1.value }
        }
    }

    /// `lock.withLock`, hidden from Thread Sanitizer with what `body` touches.
    private static func unseen<Result>(_ lock: NSLock, _ body: () -> Result) -> Result {
        unseen_begin()
        defer { unseen_end() }
        return lock.withLock(body)
    }

    private func unseen<Result>(_ lock: NSLock, _ body: () -> Result) -> Result {
        Self.unseen(lock, body)
    }
}
