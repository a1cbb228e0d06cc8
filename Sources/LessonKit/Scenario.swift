import SlowNetwork

/// A script of gestures and events on a clock: what the "user" and the
/// "system" do to the app during one run. Times are story seconds (divided by
/// `--speed`), rows are table rows.
public struct Scenario: Sendable {
    public enum Step: Sendable, Equatable {
        /// Finger down, move to `row` at the top of the screen over `seconds`, finger up and stop.
        case drag(toRow: Double, seconds: Double)
        /// A flick: a short drag, then the content glides on and comes to rest at `row`.
        case fling(toRow: Double, seconds: Double)
        /// Nothing happens for a while.
        case pause(seconds: Double)
        /// Wait until every visible row shows its own icon, or nothing is loading
        /// any more, but at most `timeout` seconds.
        case settle(timeout: Double)
        case memoryWarning
        case goOffline
        case goOnline
        /// The app is killed and started again: a new controller, the same disk
        /// cache folder, the same network.
        case relaunch
        /// The app's Caches folder is deleted while it runs (a user clearing
        /// space, a cleaner app): the next icon written must make it again.
        case deleteCachesFolder
    }

    public let name: String
    /// One line: what the script does and which bug it is made to show.
    public let summary: String
    public var steps: [Step]
    /// Rows whose icons are slow (the tutorial's `row > 9`), and how slow.
    public var slowRows: Range<Int>?
    public var slowSeconds: ClosedRange<Double> = 5...10
    /// Extra per-row network behaviour (fail first N, corrupt…).
    public var rowRules: [(rows: [Int], behavior: URLRule.Behavior)] = []
    public var startsOffline = false
    /// Relative spread of every request's latency (0.2: ±20 %), drawn from the
    /// seed. 0 makes downloads started together end together, as no real
    /// network does.
    public var jitter: Double = 0

    public init(name: String, summary: String, steps: [Step]) {
        self.name = name
        self.summary = summary
        self.steps = steps
    }

    /// The network rules this scenario needs for a catalog.
    public func rules(for catalog: AppCatalog) -> [URLRule] {
        func urls(_ rows: some Sequence<Int>) -> Set<String> {
            Set(rows.filter { catalog.entries.indices.contains($0) }.map { catalog.entries[$0].icon })
        }
        var rules = rowRules.map { URLRule(urls: urls($0.rows), behavior: $0.behavior) }
        if let slowRows {
            let rows = slowRows.clamped(to: catalog.entries.indices)
            rules.append(URLRule(urls: urls(rows), behavior: .slow(slowSeconds)))
        }
        return rules
    }
}
