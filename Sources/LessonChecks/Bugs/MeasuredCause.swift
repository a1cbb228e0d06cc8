import Foundation
import LessonKit
import SlowNetwork

/// What a failed check's figures show went wrong, found before a bug is
/// named: a bug of the table whose shape was measured, or a cause the table
/// does not have, titled by what was measured. One cause gives one verdict;
/// every other expectation that failed through it says so instead of a ✗ of
/// its own (`onceEach`).
struct MeasuredCause: Equatable {
    /// The verdict's title: the bug's name whose shape was measured, else what was measured.
    let title: String
    /// The rows, requests and files that show it (the verdict's `seen:` line).
    let seen: String
    let hint: String

    /// The disk cache's naming bug: rows whose URLs end alike read each other's icon from one file.
    static let sharedFiles = "icons whose URLs end alike share one file on disk"

    /// One verdict per cause: the table's own ✗ of that name where it has
    /// one, else the first ✗ titled by it; every other ✗ titled by the same
    /// cause is "not measured apart from" it, with what its own run showed.
    static func onceEach(_ results: [CheckResult]) -> [CheckResult] {
        var owner: [String: Int] = [:]
        for (index, result) in results.enumerated() where !result.passed && result.wasMeasured && result.shape == nil {
            owner[result.bug] = owner[result.bug] ?? index
        }
        for (index, result) in results.enumerated() where !result.passed && result.wasMeasured {
            if let title = result.shape, owner[title] == nil { owner[title] = index }
        }
        return results.enumerated().map { index, result in
            guard !result.passed, result.wasMeasured, let title = result.shape, let first = owner[title], first != index
            else { return result }
            return CheckResult(
                bug: result.bug, passed: false,
                measured: "not measured apart from \(title)" + (result.diagnosis.map { ": " + $0 } ?? ""),
                expected: result.expected,
                hint: "Judged once \"\(title)\" is gone: its verdict above says what to look at.",
                isSafeguard: result.isSafeguard, notMeasured: true)
        }
    }

    /// The causes that explain failures in runs other than the one they were
    /// measured in, each from the first run (by scenario name) that shows it alone.
    struct Found {
        /// A run whose rows showed each other's icon from one file: its scenario, and the rows and files.
        let sharedFiles: (scenario: String, sentence: String)?
        /// A run with no memory warning and no failed download whose downloads stopped after a drag.
        let stoppedAfterADrag: StoppedAfterADrag?

        init(_ reports: [Report]) {
            sharedFiles = reports.lazy.compactMap { report in
                MeasuredCause.sharedFiles(in: report).map { (report.run.scenario, $0) }
            }.first
            stoppedAfterADrag =
                reports.contains {
                    $0.memoryWarnings == 0 && $0.iconRequests.leftFailed == 0 && $0.downloadsStopAfterADrag
                } ? StoppedAfterADrag() : nil
        }
    }

    /// Downloads asked for after a drag that never start: a queue held and never let go.
    struct StoppedAfterADrag {
        func seen(in report: Report) -> MeasuredCause {
            let drag = report.lastDragWithoutGlide.map { " that ended at \(Int($0.endMs.rounded())) ms" } ?? ""
            let missing = report.visibleRowsAtEnd - report.ownIconsAtEnd
            return MeasuredCause(
                title: "no download starts after a drag",
                seen: "no request after the drag\(drag) on \(report.run.scenario), nothing in flight at the end, and "
                    + "\(missing) of \(report.visibleRowsAtEnd) visible rows without their icon at the end",
                hint: "After the drag your code started no download, though rows were left without their icons: "
                    + "what holds your queue once a drag ends on a table at rest? (That drag ends with "
                    + "`scrollViewDidEndDragging(_:willDecelerate:)`, `decelerate` false, and no "
                    + "`scrollViewDidEndDecelerating(_:)` follows.)")
        }
    }

    /// "rows 0, 1, 2 and 6 have URLs ending in icon.png: 5 files on disk for
    /// 8 icons, 2 frames with another row's icon": the rows whose downloaded
    /// icons share a last path component, from the run's requests, where the
    /// run showed another row's icon and the disk holds fewer files than icons;
    /// nil otherwise.
    static func sharedFiles(in report: Report) -> String? {
        guard report.wrongImageFrames > 0, report.iconsShareFiles else { return nil }
        let fetched = report.iconRequests.icons.filter { $0.downloads.contains { $0.outcome == "ok" } }
        let alike = Dictionary(grouping: fetched) { URL(string: $0.url)?.lastPathComponent ?? $0.url }
            .filter { $0.value.count > 1 }
            .sorted { $0.key < $1.key }
        guard !alike.isEmpty else { return nil }
        let named = alike.map { name, icons in
            let rows = icons.compactMap(\.row).sorted().map(String.init)
            return "rows \(ImageListChecks.listed(rows, more: 0)) have URLs ending in \(name)"
        }
        return (whoseIcons(in: report).map { $0 + "; " } ?? "") + named.joined(separator: "; ")
            + ": \(counted(report.diskCacheFiles, "file")) on disk for \(counted(report.uniqueURLs, "icon")), "
            + "\(counted(report.wrongImageFrames, "frame")) with another row's icon"
    }

    /// The most owners `whoseIcons` names before "and N more".
    static let ownersNamed = 3

    /// "rows 30 and 31 show row 6's icon (read from `icon.png` on disk)": the
    /// rows that showed another row's icon, grouped by whose, from the report's
    /// `othersIcons`, each owner's icon with where the app read it: the files
    /// read that held it (`diskReadFiles`), or none read, when the run watched
    /// its reads; nil when no row showed a known row's.
    static func whoseIcons(in report: Report) -> String? {
        let owners = Dictionary(grouping: report.othersIcons.filter { $0.showed != nil }) { $0.showed ?? 0 }
            .sorted { $0.key < $1.key }
        guard !owners.isEmpty else { return nil }
        let said = owners.prefix(ownersNamed).map { owner, shown in
            let rows = Set(shown.map(\.row)).sorted().map(String.init)
            return (rows.count == 1 ? "row \(rows[0]) shows" : "rows \(ImageListChecks.listed(rows, more: 0)) show")
                + " row \(owner)'s icon" + (readFrom(owner, in: report).map { " (\($0))" } ?? "")
        }
        return ImageListChecks.listed(said, more: max(0, owners.count - ownersNamed))
    }

    /// "read from `icon.png` on disk", or "not read from disk: no file read held
    /// it": where the app read `row`'s icon; nil when the run did not watch its reads.
    static func readFrom(_ row: Int, in report: Report) -> String? {
        guard let files = report.diskReadFiles else { return nil }
        let held = files.filter { $0.rows.contains(row) }.map { "`\($0.file)`" }
        guard !held.isEmpty else { return "not read from disk: no file read held it" }
        return "read from \(ImageListChecks.listed(held, more: 0)) on disk"
    }
}

extension MeasuredCause {
    /// Visible rows left with placeholders because their downloads were still
    /// in flight when the story ended, while downloads whose icons reached no
    /// cell had taken the queue's turns before them; nil when the run is not that.
    static func stillLoading(in report: Report) -> MeasuredCause? {
        let icons = report.iconRequests.icons
        let loading = icons.filter { $0.downloads.last?.outcome == "in flight" }
        let missing = report.visibleRowsAtEnd - report.ownIconsAtEnd
        guard missing > 0, report.wrongImageFrames == 0, !loading.isEmpty else { return nil }
        // Downloads that ended, their icon reaching no cell, before the first still loading started.
        let firstLoading = loading.compactMap { $0.downloads.last?.startMs }.min() ?? 0
        let ranBefore = { (download: IconRequests.Download) in
            download.outcome == "ok" && !download.shown && (download.endMs ?? .infinity) <= firstLoading
        }
        let unseen = icons.filter { $0.downloads.contains(where: ranBefore) }
        let wasted = unseen.flatMap { $0.downloads.filter(ranBefore) }
        let rows = loading.compactMap(\.row).map(String.init)
        let starts = loading.compactMap { $0.downloads.last.map { String(Int($0.startMs.rounded())) } }
        let unseenRows = unseen.compactMap(\.row).map(String.init)
        let these = rows.count == 1 ? "row \(rows[0]) was" : "rows \(ImageListChecks.listed(rows, more: 0)) were"
        let others = missing - loading.count
        let queue = report.downloadQueueLimit.map { "; your queue runs \(counted($0, "download")) at a time" } ?? ""
        return MeasuredCause(
            title: "rows still downloading when the story ended",
            seen: "\(missing) of \(report.visibleRowsAtEnd) visible rows without their icon at the end on "
                + "\(report.run.scenario): \(these) still downloading (started at \(ImageListChecks.listed(starts, more: 0)) "
                + "ms, the story ended at \(Int(report.durationMs.rounded())) ms)"
                + (others > 0 ? ", and no download of the other \(others) under way\(queue)" : "")
                + (wasted.isEmpty
                    ? ""
                    : "; before them, \(counted(wasted.count, "download")) of row\(unseenRows.count == 1 ? "" : "s") "
                        + "\(ImageListChecks.listed(Array(unseenRows.prefix(6)), more: max(0, unseenRows.count - 6))) "
                        + "ended without reaching a cell"),
            hint: wasted.isEmpty
                ? "The story ended while your downloads for the rows on screen were still coming, one after another. "
                    + "How many run at once in your code, and what has to finish before a row on screen gets its turn?"
                : "Your queue gave its turns to downloads whose icons reached no cell, rows the user had scrolled "
                    + "away from, while the rows on screen waited. What happens to a row's download in your code when "
                    + "the row leaves the screen?")
    }
}

extension Report {
    /// The last scroll the user ended as a drag, the finger lifted on a table at rest (no glide after it).
    var lastDragWithoutGlide: IconRequests.Scroll? {
        self.iconRequests.scrolls.last { $0.glideMs >= $0.endMs }
    }

    /// Rows without their icon at the end, nothing in flight, and no download
    /// started after the last drag: the downloads asked for after it never started.
    var downloadsStopAfterADrag: Bool {
        guard self.requests > 0, self.ownIconsAtEnd < self.visibleRowsAtEnd, self.iconRequests.inFlightAtEnd == 0,
            let drag = lastDragWithoutGlide
        else { return false }
        let lastStart = self.iconRequests.icons.flatMap { $0.downloads.map(\.startMs) }.max() ?? 0
        return lastStart < drag.endMs
    }

    /// The first icon downloaded again after a download of it ended, when no
    /// memory warning came between the two (a warning drops what was under
    /// way, and asking again after it is right).
    var repeatNoWarningExplains: IconRequests.Repeat? {
        guard let again = self.iconRequests.firstRepeat else { return nil }
        let warned = self.iconRequests.memoryWarningsMs.contains {
            $0 >= again.earlier.startMs && $0 <= again.again.startMs
        }
        return warned ? nil : again
    }
}
