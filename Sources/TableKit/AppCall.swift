import UnseenSync

/// Calls the app's code (its controller, data source or delegate) from the
/// harness. The harness's turns of the main queue are hidden from Thread
/// Sanitizer; what the app does in such a call is the app's, and TSan sees it
/// (docs/architecture.md, "The race run").
package func callingTheApp<Result>(_ call: () throws -> Result) rethrows -> Result {
    let turns = unseen_app_call_begin()
    defer { unseen_app_call_end(turns) }
    return try call()
}
