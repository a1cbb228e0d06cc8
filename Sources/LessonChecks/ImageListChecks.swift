import Foundation
import LessonKit
import TableKit

/// One bug an image-list exercise asks the learner to fix, and how the
/// reports of real runs say whether it is gone.
public struct ImageListBug: Sendable {
    public let text: BugText
    /// The runs it reads, each a named scenario.
    public let scenarios: [Scenario]
    /// Gone or not, and what was measured, from the reports of `scenarios`.
    let judge: @Sendable (ImageListReports) -> (passed: Bool, measured: String)
}

/// What one run of a scenario measured: its report, and its timeline when
/// it was played in this process (a child process hands back the report only).
public struct ImageListRun: Sendable {
    public let report: Report
    public let timeline: Timeline?

    public init(report: Report, timeline: Timeline? = nil) {
        self.report = report
        self.timeline = timeline
    }

    public init(_ result: ScenarioResult) {
        self.init(report: result.report, timeline: result.timeline)
    }
}

/// The runs of one controller, by scenario.
public struct ImageListReports: Sendable {
    let runs: [String: ImageListRun]

    subscript(_ scenario: Scenario) -> Report { run(scenario).report }

    func run(_ scenario: Scenario) -> ImageListRun {
        guard let run = runs[scenario.name] else {
            preconditionFailure("scenario \(scenario.name) was not run; list it in the bug's scenarios")
        }
        return run
    }
}

/// The checks of the image-list exercises (2–7), parameterized by where the
/// runs come from: a controller played in this process, a shared test run,
/// or a step's executable in a child process (for code that can crash).
///
/// The same checks are the steps' tests (against step N: they pass; against
/// step N-1: they fail) and the learner's checker (against the workbench).
public enum ImageListChecks {
    /// Plays a scenario against the code under test and returns what it measured.
    public typealias RunSource = @Sendable (Scenario) async throws -> ImageListRun

    public static func inProcess(_ controller: any LessonController.Type, exercise: Int) -> RunSource {
        { scenario in
            let entry = LessonCatalog.entry(exercise)
            let setup = ScenarioSetup(
                lesson: entry?.id ?? "\(exercise)", title: "exercise \(exercise)", controller: controller,
                scenario: scenario)
            return ImageListRun(await ScenarioRunner.run(setup))
        }
    }

    /// The exercises whose starting code writes shared state from download
    /// threads, a race `RaceCheck` sees in a Thread Sanitizer build.
    public static let racyBefore: Set<Int> = [5]

    /// The exercises this file checks.
    public static var exercises: [Int] { bugsByExercise.keys.sorted() }

    public static func bugs(exercise: Int) -> [ImageListBug] {
        bugsByExercise[exercise] ?? []
    }

    /// The scenarios exercise `exercise` plays, each once, in order.
    public static func scenarios(exercise: Int) -> [Scenario] {
        var seen = Set<String>()
        return bugs(exercise: exercise).flatMap(\.scenarios).filter { seen.insert($0.name).inserted }
    }

    /// Plays each scenario the exercise needs once (through `run`) and judges
    /// every bug. A run that fails (a crash) fails the bugs that read it, and
    /// says why.
    public static func check(
        exercise: Int, narrate: (@Sendable (String) -> Void)? = nil, run: RunSource
    ) async -> [CheckResult] {
        var runs: [String: ImageListRun] = [:]
        var failures: [String: String] = [:]
        for scenario in scenarios(exercise: exercise) {
            narrate?("playing \(scenario.name): \(scenario.summary)")
            do {
                runs[scenario.name] = try await run(scenario)
            } catch {
                failures[scenario.name] = "\(error)"
            }
        }
        return bugs(exercise: exercise).map { bug in
            if let failed = bug.scenarios.lazy.compactMap({ scenario in
                failures[scenario.name].map { "the \(scenario.name) run \($0)" }
            }).first {
                return bug.text.result(passed: false, measured: failed)
            }
            let (passed, measured) = bug.judge(ImageListReports(runs: runs))
            return bug.text.result(passed: passed, measured: measured)
        }
    }
}

// MARK: - The bugs, exercise by exercise

extension ImageListChecks {
    /// Not a bug of the starting code but of a hasty fix: UI set from a
    /// download thread. Every exercise that moves work off the main queue checks it.
    static func uiOnTheMainQueue(_ scenarios: [Scenario], hint: String) -> ImageListBug {
        ImageListBug(
            text: BugText(
                name: "the UI is touched only on the main queue", expected: "0 main-queue violations", hint: hint,
                why:
                    "UIKit objects (here TableKit's) may only be used on the main queue. TableKit records every touch "
                    + "from another thread, like Xcode's Main Thread Checker.",
                isSafeguard: true),
            scenarios: scenarios,
            judge: { reports in
                let counts = scenarios.map { reports[$0].mainThreadViolations }
                return (counts.allSatisfy { $0 == 0 }, "\(counts.reduce(0, +)) main-queue violations")
            })
    }

    static let bugsByExercise: [Int: [ImageListBug]] = [
        2: [
            ImageListBug(
                text: BugText(
                    name: "downloads freeze the main queue",
                    expected:
                        "no download on the main queue · the main queue never stalls · every visible row shows its "
                        + "icon at the end",
                    hint:
                        "Download in `queue.addOperation { … }` on a `lazy var queue = OperationQueue()`, not in "
                        + "`cellForRowAt` itself; set the image in `OperationQueue.main.addOperation { … }`.",
                    why:
                        "Every icon is downloaded inside `cellForRowAt`, on the main queue: nothing else runs there "
                        + "(no frame, no touch) until it returns. The main queue should only *start* downloads and "
                        + "*receive* images; the waiting belongs on a queue's worker threads, where it blocks nobody "
                        + "the user can see."),
                scenarios: [.standard],
                judge: { reports in
                    let report = reports[.standard]
                    let passed =
                        report.requests > 0 && report.requestsOnMainQueue == 0
                        && report.maxMainStallMs == 0 && report.ownIconsAtEnd == report.visibleRowsAtEnd
                    return (
                        passed,
                        "\(report.requestsOnMainQueue) of \(report.requests) downloads on the main queue · longest "
                            + "stall \(report.maxMainStallMs.ms) · \(report.ownIconsAtEnd)/\(report.visibleRowsAtEnd) "
                            + "rows show their icon at the end"
                    )
                }),
            ImageListBug(
                text: BugText(
                    name: "cells stay blank while their icon loads",
                    expected: "frames with a placeholder, and no blank frame",
                    hint: "Set `cell.imageView.image = Image.placeholder` before the download starts.",
                    why:
                        "A placeholder first: the row shows a grey tile at once instead of nothing, then the icon "
                        + "when its operation hands it back through `OperationQueue.main`."),
                scenarios: [.standard],
                judge: { reports in
                    let report = reports[.standard]
                    return (
                        report.placeholderFrames > 0 && report.blankFrames == 0,
                        "\(report.blankFrames) blank frames · \(report.placeholderFrames) frames with a placeholder"
                    )
                }),
            uiOnTheMainQueue(
                [.standard],
                hint:
                    "Set the image inside `OperationQueue.main.addOperation { … }`, not on the download's thread."),
        ],
        3: [
            ImageListBug(
                text: BugText(
                    name: "every scroll back downloads the icons again",
                    expected: "one request per icon, none failed",
                    hint:
                        "Keep each icon once downloaded (step 3 keeps it on the model: `AppInfo` becomes a class with "
                        + "`var image: Image?`) and show it in `cellForRowAt` before thinking of a download.",
                    why:
                        "Nothing keeps the image: scrolling back over rows already loaded starts their downloads "
                        + "again (48 requests for 28 icons on the standard scroll). An icon downloaded once should "
                        + "be kept, and `cellForRowAt` should use it before it thinks of the network."),
                scenarios: [.standard],
                judge: { reports in
                    let report = reports[.standard]
                    return (
                        report.uniqueURLs > 0 && report.failedRequests == 0 && report.requests == report.uniqueURLs,
                        "\(report.requests) requests for \(report.uniqueURLs) icons · \(report.failedRequests) failed"
                    )
                }),
            ImageListBug(
                text: BugText(
                    name: "a late icon lands in a reused cell of another row",
                    expected:
                        "0 frames with another row's icon on the fast scroll · every row shows its own icon at the "
                        + "end of the standard scroll",
                    hint:
                        "When the download ends, don't set the captured cell's image: cells are reused. Reload the "
                        + "row (`self.tableView.reloadRows(at: [indexPath])`) so `cellForRowAt` shows the kept icon.",
                    why:
                        "The closure captured `cell`, the object, not the row. Cells are reused: by the time row 10's "
                        + "slow icon arrives, its cell has scrolled out and back in as row 19, and the icon is drawn "
                        + "there. Reloading the *row* asks `cellForRowAt` again, whatever cell shows it now."),
                scenarios: [.fastScrollSlowRows, .standard],
                judge: { reports in
                    let fast = reports[.fastScrollSlowRows]
                    let standard = reports[.standard]
                    return (
                        fast.wrongImageFrames == 0 && fast.requests > 0
                            && standard.ownIconsAtEnd == standard.visibleRowsAtEnd,
                        "\(fast.wrongImageFrames) frames with another row's icon (fast scroll) · "
                            + "\(standard.ownIconsAtEnd)/\(standard.visibleRowsAtEnd) rows with their own icon at the "
                            + "end (standard)"
                    )
                }),
            uiOnTheMainQueue(
                [.fastScrollSlowRows, .standard],
                hint: "Reload the row inside `OperationQueue.main.addOperation { … }`: the table is UI."),
        ],
        4: [
            ImageListBug(
                text: BugText(
                    name: "a memory warning frees nothing",
                    expected:
                        "0 image bytes kept after the warning · the freed icons downloaded again when their rows "
                        + "come back · every row shows its icon at the end",
                    hint:
                        "Keep the icons in one dictionary the controller owns (`var imageCache: [String: Image]`, by "
                        + "icon URL) and empty it in `override func didReceiveMemoryWarning()`.",
                    why:
                        "The system asked the app to free memory, and it freed nothing: its icons are spread over "
                        + "sixty model objects, and `didReceiveMemoryWarning` has no way to find them. Keep the cache "
                        + "in one place you own, so one line can empty it; rows shown again download theirs again."),
                scenarios: [.memoryWarningThenScroll],
                judge: { reports in
                    let report = reports[.memoryWarningThenScroll]
                    let kept = report.liveImageBytes
                    let passed =
                        kept == 0 && report.failedRequests == 0 && report.requests > report.uniqueURLs
                        && report.ownIconsAtEnd == report.visibleRowsAtEnd
                    return (
                        passed,
                        "\(kept.map { "\($0) image bytes" } ?? "nothing measured") kept after the warning · "
                            + "\(report.requests) requests for \(report.uniqueURLs) icons · "
                            + "\(report.ownIconsAtEnd)/\(report.visibleRowsAtEnd) rows with their icon at the end"
                    )
                }),
            uiOnTheMainQueue(
                [.memoryWarningThenScroll],
                hint: "Reload the row inside `OperationQueue.main.addOperation { … }`: the table is UI."),
        ],
        5: [
            ImageListBug(
                text: BugText(
                    name: "a slow icon scrolled away and back is downloaded twice at once",
                    expected: "0 duplicates in flight · one request per icon · every row shows its icon at the end",
                    hint:
                        "Keep the download under way for each icon URL (`var operations: [String: Operation]`); in "
                        + "`cellForRowAt`, if one is there, show the placeholder and start nothing.",
                    why:
                        "Nothing remembers a download in flight: when row 8 comes back while its slow icon is still "
                        + "loading, `cellForRowAt` finds no icon and starts a second download of the same URL. An "
                        + "operation pool — one operation per URL, running or waiting — makes the second visit wait "
                        + "for the first download."),
                scenarios: [.scrollBackWhileLoading],
                judge: { reports in
                    let report = reports[.scrollBackWhileLoading]
                    return (
                        report.duplicateRequests == 0 && report.uniqueURLs > 0 && report.requests == report.uniqueURLs
                            && report.ownIconsAtEnd == report.visibleRowsAtEnd,
                        "\(report.duplicateRequests) duplicates in flight · \(report.requests) requests for "
                            + "\(report.uniqueURLs) icons · \(report.ownIconsAtEnd)/\(report.visibleRowsAtEnd) rows "
                            + "with their icon at the end"
                    )
                }),
            ImageListBug(
                text: BugText(
                    name: "offline, a failed download asks again, forever",
                    expected: "one request per icon shown, however long the user waits",
                    hint:
                        "When a download ends with no image, don't reload the row: the reload asks `cellForRowAt` "
                        + "again, which downloads again, which fails again.",
                    why:
                        "Offline, every download fails at once; the completion reloads the row anyway; `cellForRowAt` "
                        + "finds no icon and starts another download: a loop that only ends with the app. No icon, no "
                        + "reload."),
                scenarios: [.offlineBrowse],
                judge: { reports in
                    let report = reports[.offlineBrowse]
                    return (
                        report.uniqueURLs > 0 && report.requests == report.uniqueURLs,
                        "\(report.requests) requests for \(report.uniqueURLs) icons, all failed"
                    )
                }),
            ImageListBug(
                text: BugText(
                    name: "the controller is never freed while its downloads run",
                    expected: "the controller freed when the user leaves, slow downloads still out",
                    hint:
                        "Capture `[weak self]` in the download's block (and in the block it sends to the main queue), "
                        + "and keep what the block needs (the network) in a local constant.",
                    why:
                        "The queue holds the operation, the operation holds its block, and the block holds `self`: "
                        + "the controller lives until the last slow download ends, long after the user has left."),
                scenarios: [.leaveWhileLoading],
                judge: { reports in
                    let report = reports[.leaveWhileLoading]
                    return (report.controllerFreed, "controller freed: \(report.controllerFreed ? "yes" : "no")")
                }),
            ImageListBug(
                text: BugText(
                    name: "a failed icon is tried again when its row comes back",
                    expected: "row 2's icon (which fails once) shown at the end · every row its own icon",
                    hint:
                        "Take the operation out of the pool however the download ended (\"if there is an if, there must "
                        + "be an else\"): a failed one left there blocks its icon for good.",
                    why:
                        "A pool that removes an operation only when its download worked keeps a failed one forever: "
                        + "every later visit to the row finds it there and waits for a download that will never "
                        + "come back.",
                    isSafeguard: true),
                scenarios: [.failOnce],
                judge: { reports in
                    let report = reports[.failOnce]
                    return (
                        report.failedRequests > 0 && report.ownIconsAtEnd == report.visibleRowsAtEnd,
                        "\(counted(report.failedRequests, "failed request")) · \(report.ownIconsAtEnd)/\(report.visibleRowsAtEnd) "
                            + "rows with their icon at the end"
                    )
                }),
            uiOnTheMainQueue(
                [.scrollBackWhileLoading, .offlineBrowse],
                hint: "Touch the pool, the cache and the table only inside `OperationQueue.main.addOperation { … }`."),
        ],
        6: [
            ImageListBug(
                text: BugText(
                    name: "a relaunch downloads every icon again",
                    expected:
                        "0 requests after the relaunch · one file per icon in the Caches folder · every row its own "
                        + "icon",
                    hint:
                        "Write each downloaded icon to `cachesDirectory` (`data.write(to:options: .atomic)`) and, in "
                        + "`cellForRowAt`, read it from there before downloading. Name the file from the whole URL "
                        + "(a hash), not its last path component: `…/qq/icon.png` and `…/wechat/icon.png` would share one.",
                    why:
                        "Memory is gone when the app is: a relaunched app that keeps icons only in a dictionary "
                        + "downloads them all again. Keep them in the Caches folder too — memory, then disk, then "
                        + "network. The tutorials name the file by the URL's last path component, and four rows "
                        + "here end in `icon.png`."),
                scenarios: [.relaunch],
                judge: { reports in
                    let report = reports[.relaunch]
                    let again = report.requestsAfterRelaunch
                    return (
                        again == 0 && report.ownIconsAtEnd == report.visibleRowsAtEnd && report.wrongImageFrames == 0
                            && report.diskCacheFiles == report.uniqueURLs,
                        "\(again.map(String.init) ?? "no") requests after the relaunch · \(report.diskCacheFiles) files "
                            + "for \(report.uniqueURLs) icons · \(report.ownIconsAtEnd)/\(report.visibleRowsAtEnd) rows "
                            + "with their own icon · \(report.wrongImageFrames) frames with another row's icon"
                    )
                }),
            ImageListBug(
                text: BugText(
                    name: "an offline relaunch shows only placeholders",
                    expected: "every visible row shows its icon after relaunching offline",
                    hint:
                        "Read the icon from the Caches folder before thinking of the network: offline, it is all there is.",
                    why:
                        "Offline, the relaunched app has nothing in memory and the network fails: only what was kept "
                        + "on disk can be shown."),
                scenarios: [.offlineRelaunch],
                judge: { reports in
                    let report = reports[.offlineRelaunch]
                    return (
                        report.visibleRowsAtEnd > 0 && report.ownIconsAtEnd == report.visibleRowsAtEnd,
                        "\(report.ownIconsAtEnd)/\(report.visibleRowsAtEnd) rows show their icon after the offline relaunch"
                    )
                }),
            uiOnTheMainQueue(
                [.relaunch],
                hint: "Write the cache and reload the row inside `OperationQueue.main.addOperation { … }`."),
        ],
        7: [
            ImageListBug(
                text: BugText(
                    name: "a memory warning does not stop the downloads",
                    expected:
                        "no download starts after the warning · none under way at the warning delivers after it",
                    hint:
                        "Make each download an `Operation` subclass whose `main()` checks `isCancelled` before and "
                        + "after the fetch; on a memory warning call `queue.cancelAllOperations()` and empty the pool.",
                    why:
                        "Cancelling only asks: a block operation that never looks at `isCancelled` runs to the end and "
                        + "delivers anyway, and waiting ones start later for rows the user has long left. An "
                        + "operation of your own can check, before it starts the fetch and after it returns."),
                scenarios: [.memoryWarningMidDownload],
                judge: { reports in
                    let run = reports.run(.memoryWarningMidDownload)
                    let stale = run.report.measures["staleDeliveries"]
                    guard let timeline = run.timeline,
                        let warning = timeline.events.first(where: { $0.label == "memory warning" })
                    else { return (false, "no memory warning in the run's timeline") }
                    let startedAfter = timeline.requests.filter { $0.startMs > warning.ms }.count
                    return (
                        startedAfter == 0 && (stale ?? 0) == 0,
                        "\(startedAfter) downloads started after the warning · "
                            + (stale.map { "\(Int($0)) delivered after it" } ?? "deliveries after it not measured")
                    )
                }),
            ImageListBug(
                text: BugText(
                    name: "downloads start while the user scrolls",
                    expected: "0 downloads started while scrolling · every row shows its icon once the table rests",
                    hint:
                        "Suspend the queue in `scrollViewWillBeginDragging` and resume it when the table comes to "
                        + "rest (`scrollViewDidEndDragging(_:willDecelerate: false)`, `scrollViewDidEndDecelerating`).",
                    why:
                        "Downloads compete with the scroll for the CPU. Suspending the queue while the finger is down "
                        + "stops it from starting operations (running ones carry on); the rows scrolled past still "
                        + "download, after the drag."),
                scenarios: [.standard],
                judge: { reports in
                    let report = reports[.standard]
                    return (
                        report.requestsStartedWhileScrolling == 0 && report.requests > 0
                            && report.ownIconsAtEnd == report.visibleRowsAtEnd,
                        "\(report.requestsStartedWhileScrolling) of \(report.requests) downloads started while scrolling · "
                            + "\(report.ownIconsAtEnd)/\(report.visibleRowsAtEnd) rows with their icon at the end"
                    )
                }),
            uiOnTheMainQueue(
                [.memoryWarningMidDownload, .standard],
                hint: "Call the delegate, write the cache and reload the row on the main queue."),
        ],
    ]
}

extension Double {
    /// "412 ms".
    var ms: String { String(format: "%.0f ms", self) }
}
