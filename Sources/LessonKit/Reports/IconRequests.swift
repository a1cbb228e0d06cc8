import Foundation
import SlowNetwork

/// Each icon's downloads in story order, as the network served them and the
/// table showed them: when each started and ended, how it ended (cancelled
/// by the app, failed, or with its bytes), and whether its icon reached a
/// cell before the icon was asked for again. What a verdict needs to say
/// "row 10's icon was downloaded again after its first download was
/// cancelled" from a run rather than guess it from two counts.
public struct IconRequests: Codable, Equatable, Sendable {
    public struct Download: Codable, Equatable, Sendable {
        public let startMs: Double
        public let endMs: Double?
        /// How the network ended it: ok, cancelled (the app cancelled its
        /// fetch), failed, corrupt, truncated, or still in flight.
        public let outcome: String
        /// A cell's image view was given this icon on the main queue after the
        /// download ended and before the icon was asked for again (or the run
        /// ended): what it brought reached the table.
        public let shown: Bool
    }

    public struct Icon: Codable, Equatable, Sendable {
        public let url: String
        /// The first row of the catalog that shows it; nil for a URL no row has.
        public let row: Int?
        public let downloads: [Download]
    }

    /// One scroll of the user's, in story ms: the finger on the table from
    /// `startMs`, then, after a flick, the table gliding on from `glideMs`
    /// (`endMs` for a drag) to `endMs`.
    public struct Scroll: Codable, Equatable, Sendable {
        public let startMs: Double
        public let glideMs: Double
        public let endMs: Double
    }

    public private(set) var icons: [Icon] = []
    /// When the memory warnings came, and the user's scrolls, in story ms:
    /// what the downloads are read against.
    public private(set) var memoryWarningsMs: [Double] = []
    public private(set) var scrolls: [Scroll] = []

    public init() {}

    /// From the request log, the icons each cell was given and when (story
    /// ms, by URL), the catalog's icon of each row, the memory warnings and the scrolls.
    public init(
        requests: [Request], shownMs: [String: [Double]], rowIcons: [String], memoryWarningsMs: [Double] = [],
        scrolls: [Scroll] = []
    ) {
        self.memoryWarningsMs = memoryWarningsMs
        self.scrolls = scrolls
        let byURL = Dictionary(grouping: requests) { SlowNetwork.resourceName($0.url) }
        let rowOf = Dictionary(
            rowIcons.enumerated().map { (SlowNetwork.resourceName($0.element), $0.offset) }, uniquingKeysWith: min)
        icons = byURL.keys.sorted { (rowOf[$0] ?? .max, $0) < (rowOf[$1] ?? .max, $1) }.map { url in
            let asked = (byURL[url] ?? []).sorted { ($0.startMs, $0.id) < ($1.startMs, $1.id) }
            let shown = shownMs[url] ?? []
            let downloads = asked.enumerated().map { index, request in
                let next = index + 1 < asked.count ? asked[index + 1].startMs : .infinity
                let reached = request.endMs.map { end in Self.first(in: shown, atLeast: end).map { $0 <= next } ?? false }
                    ?? false
                return Download(
                    startMs: request.startMs, endMs: request.endMs, outcome: Self.outcome(request), shown: reached)
            }
            return Icon(url: url, row: rowOf[url], downloads: downloads)
        }
    }

    /// The first of `times` (in story order, as a run notes them) at or after
    /// `ms`: found by halving, since a long run shows an icon thousands of times.
    static func first(in times: [Double], atLeast ms: Double) -> Double? {
        var low = 0
        var high = times.count
        while low < high {
            let middle = (low + high) / 2
            if times[middle] < ms { low = middle + 1 } else { high = middle }
        }
        return low < times.count ? times[low] : nil
    }

    static func outcome(_ request: Request) -> String {
        if request.outcome == .failed, request.error == NetworkError.cancelled.description { return "cancelled" }
        return request.outcome == .inFlight ? "in flight" : request.outcome.rawValue
    }

    /// Downloads under way at a memory warning (started before it, answered
    /// after it, as `TableWatcher.staleDeliveries` reads them): the ones it
    /// could stop.
    public var underWayAtWarnings: Int {
        icons.flatMap(\.downloads).filter { download in
            memoryWarningsMs.contains { download.startMs < $0 && (download.endMs ?? .infinity) >= $0 }
        }.count
    }

    /// Downloads started while the finger was on the table, and while the
    /// table glided on after a flick: a queue resumed when the finger lifts
    /// starts its downloads in the glide.
    public var startedWhileFingerDown: Int {
        starts { start, scroll in start > scroll.startMs && start < scroll.glideMs }
    }

    public var startedWhileGliding: Int {
        starts { start, scroll in start >= scroll.glideMs && start < scroll.endMs && scroll.glideMs < scroll.endMs }
    }

    private func starts(_ during: (Double, Scroll) -> Bool) -> Int {
        icons.flatMap(\.downloads).filter { download in scrolls.contains { during(download.startMs, $0) } }.count
    }

    /// Downloads still in flight when the run ended: where the user leaves
    /// the screen, the ones that could keep its controller.
    public var inFlightAtEnd: Int {
        icons.flatMap(\.downloads).filter { $0.endMs == nil }.count
    }

    /// An icon asked for again after an earlier download of it had ended,
    /// never while it was in flight: the earlier download, and the next.
    public struct Repeat: Equatable, Sendable {
        public let icon: Icon
        public let earlier: Download
        public let again: Download

        /// "row 10's icon was downloaded again (at 5200 ms) after its first
        /// download was cancelled (at 4100 ms)", from how the earlier one ended.
        public var sentence: String {
            let which = icon.row.map { "row \($0)'s icon" } ?? "the icon \(icon.url)"
            let index = icon.downloads.firstIndex(of: earlier) ?? Self.ordinals.count
            let ordinal = Self.ordinals.indices.contains(index) ? Self.ordinals[index] : "earlier"
            let end = earlier.endMs.map { " (at \(Int($0.rounded())) ms)" } ?? ""
            let how =
                switch (earlier.outcome, earlier.shown) {
                case ("cancelled", _): "was cancelled\(end)"
                case ("ok", false): "brought it\(end) and no row showed it"
                case ("ok", true): "had been shown\(end)"
                default: "\(earlier.outcome == "failed" ? "failed" : "came \(earlier.outcome)")\(end)"
                }
            return "\(which) was downloaded again (at \(Int(again.startMs.rounded())) ms) after its \(ordinal) "
                + "download \(how)"
        }

        static let ordinals = ["first", "second", "third"]
    }

    /// The first icon, in row order, downloaded again after a download of it ended.
    public var firstRepeat: Repeat? {
        for icon in icons {
            for (earlier, again) in zip(icon.downloads, icon.downloads.dropFirst()) {
                if let end = earlier.endMs, again.startMs >= end {
                    return Repeat(icon: icon, earlier: earlier, again: again)
                }
            }
        }
        return nil
    }
}
