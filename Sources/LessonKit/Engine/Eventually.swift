/// Waits, without blocking a thread, until `condition` holds; false if it
/// still does not after `timeoutSeconds` of wall time. For conditions, never
/// for time: it returns as soon as the condition holds.
public func eventually(timeoutSeconds: Double, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeoutSeconds * 1000))
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}
