/// A count and its noun, singular for exactly one: "1 request", "28 requests",
/// "0 requests". For the readable lines a learner sees.
public func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
