import Foundation
import SlowNetwork

/// A script of gestures and events on a clock: what the "user" and the
/// "system" do to the app during one run. Times are story seconds (divided by
/// `--speed`), rows are table rows.
public struct Scenario: Sendable {
    public enum Step: Codable, Sendable, Equatable {
        /// Finger down, move to `row` at the top of the screen over `seconds`, finger up and stop.
        case drag(toRow: Double, seconds: Double)
        /// A flick: a short drag, then the content glides on and comes to rest at `row`.
        case fling(toRow: Double, seconds: Double)
        /// Finger down, move to `row` and back to where the finger touched down over `seconds`, finger up: rows
        /// that left the screen come back within one gesture, with no scroll end between.
        case peek(toRow: Double, seconds: Double)
        /// Nothing happens for a while.
        case pause(seconds: Double)
        /// Wait until every visible row shows its own icon, or nothing is loading
        /// any more, but at most `timeout` seconds.
        case settle(timeout: Double)
        case memoryWarning
        case goOffline
        case goOnline
        /// The app is killed and started again: a new process (`CarriedLaunch`)
        /// with a new controller, the same disk cache folder, the same network.
        case relaunch
        /// The app's Caches folder is deleted while it runs (a user clearing
        /// space, a cleaner app): the next icon written must make it again.
        case deleteCachesFolder
        /// From now on these rows' icons take `slowSeconds` (`lessons play`'s `s`).
        case slowDown(rows: [Int])
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
    /// Rows that show another row's icon, by row: row → the row whose icon URL
    /// it uses (two apps with one picture, as a CDN serves the same avatar to
    /// every post of one user). Empty: every row has its own icon.
    public var sharedIcons: [Int: Int] = [:]
    /// Where steps come from once `steps` are played: the learner's keys
    /// (`lessons play`). Nil: the run ends with the last step.
    public var keys: PlayKeys?

    public init(name: String, summary: String, steps: [Step]) {
        self.name = name
        self.summary = summary
        self.steps = steps
    }

    /// The catalog as this scenario plays it: `catalog` itself, or, when rows
    /// share icons, a copy with those rows' icon URLs replaced, written as a
    /// plist (the app reads its model from a file) to `folder`.
    /// Returns the file written, for the caller to remove; nil when none was.
    public func playedCatalog(_ catalog: AppCatalog, folder: URL) -> (catalog: AppCatalog, file: URL?) {
        guard !sharedIcons.isEmpty else { return (catalog, nil) }
        var entries = catalog.entries
        for (row, source) in sharedIcons where entries.indices.contains(row) && entries.indices.contains(source) {
            entries[row].icon = entries[source].icon
        }
        let file = folder.appendingPathComponent("catalog-\(name)-\(UUID().uuidString).plist")
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        guard let data = try? encoder.encode(entries), (try? data.write(to: file, options: .atomic)) != nil else {
            // Nowhere to write it: the scenario plays on the catalog as it is.
            return (catalog, nil)
        }
        return (AppCatalog(source: file, entries: entries), file)
    }

    /// Whether the script relaunches the app (a replayed session may, with `r`).
    public var relaunches: Bool { steps.contains(.relaunch) || keys?.relaunches == true }

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
