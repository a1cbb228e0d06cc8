import HarnessSync
import SlowNetwork
import TableKit

/// The fingerprint of the art the network serves for an icon URL, drawn once a process: every run's watchers judge
/// rows against their catalog's icons, and drawing each icon again for each run was 4 % of the CPU of the tests
/// that play in process. The lock is one Thread Sanitizer does not see: the watchers ask in the app's turns.
enum IconFingerprint {
    private static let drawn = Locked([String: Int?](), .hidden)

    static func of(_ icon: String) -> Int? {
        if let known = drawn.withLock({ $0[icon] }) { return known }
        let fingerprint = Image.fingerprint(of: IconArt.ppm(for: icon))
        drawn.withLock { $0[icon] = fingerprint }
        return fingerprint
    }
}
