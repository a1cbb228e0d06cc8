import Foundation
import SlowNetwork
import TableKit

/// Watches the app's table from outside: what `cellForRowAt` costs the main
/// queue (a disk read in it included), which icons the app delivers after a
/// memory warning, by reloading a row or by setting an image on a cell, and
/// the progress an image library shows while a load runs.
///
/// A delivery is stale when its icon's download was under way at the warning
/// (started before it, answered after it) and none was asked for since: a
/// download the warning should have stopped brought it. That is
/// judged here, from the table and the request log, so it holds for any code.
final class TableWatcher: TableViewObserver {
    /// Each row's icon URL, from the catalog the run plays.
    private let icons: [String]
    /// Each icon's URL by the fingerprint of its art, made the first time an
    /// image set on a cell has to be told apart.
    private lazy var iconOfFingerprint: [Int: String] = {
        var icons: [Int: String] = [:]
        for icon in self.icons {
            if let fingerprint = IconFingerprint.of(icon) { icons[fingerprint] = icon }
        }
        return icons
    }()
    private let now: () -> Double

    private var providingSince: ContinuousClock.Instant?
    private(set) var cellForRowAtWall = Duration.zero
    /// When memory warnings came, in story milliseconds.
    private(set) var warningsMs: [Double] = []
    /// Icons delivered after the first warning: when, and which.
    private var deliveries: [(ms: Double, icon: String)] = []
    /// When a cell's image view was given each icon on the main queue, by URL
    /// (`SlowNetwork.resourceName`): what a download brought reaching the table.
    private(set) var shownMs: [String: [Double]] = [:]
    /// The progress each cell's image view shows now, by cell.
    private var progressShown: [ObjectIdentifier: Double] = [:]
    /// Progress values shown (above 0), ones that did not rise, and images
    /// that arrived while the bar still stood short of full.
    private(set) var progressReports = 0
    private(set) var progressOutOfOrder = 0
    private(set) var progressEndedShort = 0

    init(icons: [String], now: @escaping () -> Double) {
        self.icons = icons
        self.now = now
    }

    /// What a relaunch carries into the app's next process: the story's
    /// warnings and deliveries so far (the cells they were on are gone with it).
    struct Carried: Codable {
        var warningsMs: [Double]
        var deliveriesMs: [Double]
        var deliveredIcons: [String]
        var shownMs: [String: [Double]]
        var progressReports, progressOutOfOrder, progressEndedShort: Int
    }

    var carried: Carried {
        Carried(
            warningsMs: warningsMs, deliveriesMs: deliveries.map(\.ms), deliveredIcons: deliveries.map(\.icon),
            shownMs: shownMs, progressReports: progressReports, progressOutOfOrder: progressOutOfOrder,
            progressEndedShort: progressEndedShort)
    }

    func carryOn(from carried: Carried) {
        warningsMs = carried.warningsMs
        deliveries = Array(zip(carried.deliveriesMs, carried.deliveredIcons))
        shownMs = carried.shownMs
        progressReports = carried.progressReports
        progressOutOfOrder = carried.progressOutOfOrder
        progressEndedShort = carried.progressEndedShort
    }

    func memoryWarningDelivered() {
        warningsMs.append(now())
    }

    func tableView(_ tableView: TableView, willProvideCellAt row: Int) {
        providingSince = .now
    }

    func tableView(_ tableView: TableView, didProvideCellAt row: Int) {
        if let since = providingSince { cellForRowAtWall += ContinuousClock.now - since }
        providingSince = nil
    }

    func tableView(_ tableView: TableView, willReloadRows rows: [Int]) {
        guard !warningsMs.isEmpty else { return }
        for row in rows where icons.indices.contains(row) { deliveries.append((now(), icons[row])) }
    }

    func tableView(_ tableView: TableView, cellAt row: Int?, wasGiven image: Image?) {
        guard !warningsMs.isEmpty, let image, !image.isPlaceholder,
            let icon = iconOfFingerprint[image.fingerprint]
        else { return }
        deliveries.append((now(), icon))
    }

    func tableView(_ tableView: TableView, cell: TableViewCell, showsImage image: Image?) {
        if let image, !image.isPlaceholder, let icon = iconOfFingerprint[image.fingerprint] {
            shownMs[SlowNetwork.resourceName(icon), default: []].append(now())
        }
        // A bar still empty (a load from disk shows one until its image comes)
        // never had a report to fall short of.
        guard let image, !image.isPlaceholder, let shown = progressShown[ObjectIdentifier(cell)], shown > 0 else {
            return
        }
        if shown < 1 { progressEndedShort += 1 }
    }

    func tableView(_ tableView: TableView, cell: TableViewCell, showsProgress progress: Double?) {
        let key = ObjectIdentifier(cell)
        defer { progressShown[key] = progress }
        guard let progress, progress > 0 else { return }
        progressReports += 1
        if let shown = progressShown[key], shown > 0, progress <= shown { progressOutOfOrder += 1 }
    }

    /// How many icons were delivered after a memory warning by a download
    /// under way at it, each icon counted once per warning.
    func staleDeliveries(requests requestLog: [Request]) -> Int {
        var requests: [String: [Request]] = [:]
        for request in requestLog { requests[SlowNetwork.resourceName(request.url), default: []].append(request) }
        var stale: Set<String> = []
        for delivery in deliveries {
            guard let warning = warningsMs.last(where: { $0 <= delivery.ms }) else { continue }
            let asked = requests[SlowNetwork.resourceName(delivery.icon)] ?? []
            // Under way at the warning: started before it, answered after it. One
            // answered before it left its bytes on disk, and reading them back
            // afterwards (step 10 reads the disk off the main queue) is no delivery.
            let underWay = asked.contains { $0.startMs < warning && ($0.endMs ?? .infinity) >= warning }
            let askedSince = asked.contains { $0.startMs >= warning && $0.startMs <= delivery.ms }
            if underWay && !askedSince { stale.insert("\(warning) \(delivery.icon)") }
        }
        return stale.count
    }
}
