import LessonKit

extension KnownBug {
    /// Every bug the image-list steps fix, in the order the course meets them.
    public static let all: [KnownBug] = [
        KnownBug(
            BugText(
                name: "downloads freeze the main queue",
                expected: "the main queue never stalls · every visible row shows its icon at the end",
                hint:
                    "Download in `queue.addOperation { … }` on a `lazy var queue = OperationQueue()`, not in "
                    + "`cellForRowAt` itself; set the image in `OperationQueue.main.addOperation { … }`.",
                why:
                    "Every icon is downloaded inside `cellForRowAt`, on the main queue: nothing else runs there "
                    + "(no frame, no touch) until it returns. The main queue should only *start* downloads and "
                    + "*receive* images; the waiting belongs on a queue's worker threads, where it blocks nobody "
                    + "the user can see. Hopping with `DispatchQueue.global().sync` moves the fetch, not the wait."),
            fixedIn: 2, scenario: .standard,
            measure: Measure(name: "maxMainStallMs", unit: "ms", format: { "longest main-queue stall \(Int($0)) ms" }) {
                $0.maxMainStallMs
            },
            conditions: [.downloads(on: .standard), .everyRowShowsItsIcon(on: .standard)],
            shape: Shape({ $0.maxMainStallMs > 0 }) { "the main queue stalled \(Int($0.maxMainStallMs)) ms" }),
        KnownBug(
            BugText(
                name: "cells stay blank while their icon loads",
                expected: "frames with a placeholder, and no blank frame",
                hint: "Set `cell.imageView.image = Image.placeholder` before the download starts.",
                why:
                    "A placeholder first: the row shows a grey tile at once instead of nothing, then the icon when "
                    + "its operation hands it back through `OperationQueue.main`."),
            fixedIn: 2, scenario: .standard,
            measure: Measure(name: "blankFrames", unit: "blank frame") { Double($0.blankFrames) },
            conditions: [
                Condition(on: .standard, { $0.placeholderFrames > 0 }) {
                    counted($0.placeholderFrames, "frame") + " with a placeholder"
                }
            ],
            shape: Shape({ $0.blankFrames > 0 }) { counted($0.blankFrames, "blank frame") }),
        KnownBug(
            BugText(
                name: "every scroll back downloads the icons again",
                expected: "one request per icon, none failed",
                hint:
                    "Keep each icon once downloaded (step 3 keeps it on the model: `AppInfo` becomes a class with "
                    + "`var image: Image?`) and show it in `cellForRowAt` before thinking of a download.",
                why:
                    "Nothing keeps the image: scrolling back over rows already loaded starts their downloads again. "
                    + "An icon downloaded once should be kept, and `cellForRowAt` should use it before it thinks of "
                    + "the network."),
            fixedIn: 3, scenario: .standard,
            measure: Measure(name: "requests − uniqueURLs", unit: "repeated download") {
                Double($0.requests - $0.uniqueURLs)
            },
            conditions: [
                .downloads(on: .standard),
                Condition(on: .standard, { $0.failedRequests == 0 }) { "\($0.failedRequests) failed" },
            ]),
        KnownBug(
            BugText(
                name: "a late icon lands in a reused cell of another row",
                expected: "no frame with another row's icon on the fast scroll · every row its own icon at the end",
                hint:
                    "When the download ends, don't set the captured cell's image: cells are reused. Reload the row "
                    + "(`self.tableView.reloadRows(at: [indexPath])`) so `cellForRowAt` shows the kept icon.",
                why:
                    "The closure captured `cell`, the object, not the row. Cells are reused: by the time row 10's "
                    + "slow icon arrives, its cell has scrolled out and back in as row 19, and the icon is drawn "
                    + "there. Reloading the *row* asks `cellForRowAt` again, whatever cell shows it now."),
            fixedIn: 3, scenario: .fastScrollSlowRows,
            measure: Measure(name: "wrongImageFrames", unit: "frame with another row's icon") {
                Double($0.wrongImageFrames)
            },
            conditions: [.downloads(on: .fastScrollSlowRows), .everyRowShowsItsIcon(on: .standard)],
            shape: Shape({ $0.wrongImageFrames > 0 && !$0.iconsShareFiles }) {
                counted($0.wrongImageFrames, "frame") + " with another row's icon"
            }),
        KnownBug(
            BugText(
                name: "a memory warning frees nothing",
                expected: "no image byte kept after the warning · every row shows its icon again at the end",
                hint:
                    "Keep the icons in one dictionary the controller owns (`var imageCache: [String: Image]`, by "
                    + "icon URL) and empty it in `override func didReceiveMemoryWarning()`.",
                why:
                    "The system asked the app to free memory, and it freed nothing: its icons are spread over sixty "
                    + "model objects, and `didReceiveMemoryWarning` has no way to find them. Keep the cache in one "
                    + "place you own, so one line can empty it; rows shown again download theirs again."),
            fixedIn: 4, scenario: .memoryWarningThenScroll,
            measure: Measure(
                name: "liveImageBytes", unit: "B", format: { "\(Int($0)) image bytes kept after the warning" }
            ) { $0.liveImageBytes.map(Double.init) },
            conditions: [.everyRowShowsItsIcon(on: .memoryWarningThenScroll)]),
        KnownBug(
            BugText(
                name: "a slow icon scrolled away and back is downloaded twice at once",
                expected: "no duplicate in flight · one request per icon · every row shows its icon at the end",
                hint:
                    "Keep the download under way for each icon URL (`var operations: [String: Operation]`); in "
                    + "`cellForRowAt`, if one is there, show the placeholder and start nothing.",
                why:
                    "Nothing remembers a download in flight: when row 8 comes back while its slow icon is still "
                    + "loading, `cellForRowAt` finds no icon and starts a second download of the same URL. An "
                    + "operation pool (one operation per URL, running or waiting) makes the second visit wait for "
                    + "the first download."),
            fixedIn: 5, scenario: .scrollBackWhileLoading,
            measure: Measure(name: "duplicateRequests", unit: "duplicate in flight") {
                Double($0.duplicateRequests)
            },
            conditions: [
                Condition(on: .scrollBackWhileLoading, { $0.uniqueURLs > 0 && $0.requests == $0.uniqueURLs }) {
                    "\(counted($0.requests, "request")) for \(counted($0.uniqueURLs, "icon"))"
                },
                .everyRowShowsItsIcon(on: .scrollBackWhileLoading),
            ],
            shape: Shape({ $0.duplicateRequests > 0 }) { counted($0.duplicateRequests, "duplicate") + " in flight" }),
        KnownBug(
            BugText(
                name: "offline, a failed download asks again, forever",
                expected: "one request per icon shown, however long the user waits",
                hint:
                    "When a download ends with no image, don't reload the row: the reload asks `cellForRowAt` again, "
                    + "which downloads again, which fails again.",
                why:
                    "Offline, every download fails at once; the completion reloads the row anyway; `cellForRowAt` "
                    + "finds no icon and starts another download: a loop that only ends with the app. No icon, no "
                    + "reload."),
            fixedIn: 5, scenario: .offlineBrowse,
            measure: Measure(name: "requests − uniqueURLs", unit: "repeated request") {
                Double($0.requests - $0.uniqueURLs)
            },
            conditions: [.downloads(on: .offlineBrowse)],
            shape: Shape({ $0.failedRequests > 2 * max(1, $0.uniqueURLs) }) {
                "\(counted($0.failedRequests, "failed request")) for \(counted($0.uniqueURLs, "icon")): asked again and again"
            }),
        KnownBug(
            BugText(
                name: "the controller is never freed while its downloads run",
                expected: "the controller freed when the user leaves, slow downloads still out",
                hint:
                    "Capture `[weak self]` in the download's block (and in the block it sends to the main queue), "
                    + "and keep what the block needs (the network) in a local constant.",
                why:
                    "The queue holds the operation, the operation holds its block, and the block holds `self`: the "
                    + "controller lives until the last slow download ends, long after the user has left."),
            fixedIn: 5, scenario: .leaveWhileLoading,
            measure: Measure(
                name: "controllerFreed", unit: "", format: { $0 == 1 ? "controller freed" : "controller kept" }
            ) { $0.controllerFreed ? 1 : 0 },
            presence: .below(1)),
        KnownBug(
            BugText(
                name: "a failed icon is never tried again",
                expected: "row 2's icon (which fails once) shown at the end · every row its own icon",
                hint:
                    "Take the operation out of the pool however the download ended (\"if there is an if, there must "
                    + "be an else\"): a failed one left there blocks its icon for good.",
                why:
                    "A pool that removes an operation only when its download worked keeps a failed one forever: "
                    + "every later visit to the row finds it there and waits for a download that will never come "
                    + "back."),
            fixedIn: 5, origin: .variant(flag: "naive-pool"), scenario: .failOnce,
            measure: Measure(
                name: "visibleRowsAtEnd − ownIconsAtEnd", unit: "row without its icon at the end",
                units: "rows without their icon at the end") {
                Double($0.visibleRowsAtEnd - $0.ownIconsAtEnd)
            },
            conditions: [
                Condition(on: .failOnce, { $0.failedRequests > 0 }) { counted($0.failedRequests, "failed request") }
            ],
            shape: Shape({ $0.failedRequests > 0 && $0.ownIconsAtEnd < $0.visibleRowsAtEnd && $0.wrongImageFrames == 0 }) {
                "a row still shows its placeholder at the end, after \(counted($0.failedRequests, "failed request"))"
            }),
        KnownBug(
            BugText(
                name: "a relaunch downloads every icon again",
                expected: "no request after the relaunch · every row its own icon",
                hint:
                    "Write each downloaded icon to `cachesDirectory` (`data.write(to:options: .atomic)`) and, in "
                    + "`cellForRowAt`, read it from there before downloading.",
                why:
                    "Memory is gone when the app is: a relaunched app that keeps icons only in a dictionary "
                    + "downloads them all again. Keep them in the Caches folder too: memory, then disk, then network."),
            fixedIn: 6, scenario: .relaunch,
            measure: Measure(name: "requestsAfterRelaunch", unit: "request after the relaunch") {
                $0.requestsAfterRelaunch.map(Double.init)
            },
            conditions: [.everyRowShowsItsIcon(on: .relaunch)],
            shape: Shape({ ($0.requestsAfterRelaunch ?? 0) > 0 }) {
                counted($0.requestsAfterRelaunch ?? 0, "request") + " after the relaunch"
            }),
        KnownBug(
            BugText(
                name: "icons whose URLs end alike share one file on disk",
                expected: "one file per icon · no frame with another row's icon after the relaunch",
                hint:
                    "Name the file from the whole URL (a hash, as step 6's `cacheFileName(for:)` does), not its last "
                    + "path component: `…/qq/icon.png` and `…/wechat/icon.png` would share one.",
                why:
                    "The tutorials name the file by the URL's last path component, and four rows here end in "
                    + "`icon.png`: each download overwrites the one before, and after a relaunch those rows show "
                    + "whichever icon was written last."),
            fixedIn: 6, origin: .variant(flag: "last-component-names"), scenario: .relaunch,
            measure: Measure(name: "wrongImageFrames", unit: "frame with another row's icon") {
                Double($0.wrongImageFrames)
            },
            conditions: [
                Condition(on: .relaunch, { $0.diskCacheFiles == 0 || $0.diskCacheFiles == $0.uniqueURLs }) {
                    "\(counted($0.diskCacheFiles, "file")) on disk for \(counted($0.uniqueURLs, "icon"))"
                }
            ],
            shape: Shape({ $0.wrongImageFrames > 0 && $0.iconsShareFiles }) {
                "\(counted($0.wrongImageFrames, "frame")) with another row's icon, and "
                    + "\(counted($0.diskCacheFiles, "file")) on disk for \(counted($0.uniqueURLs, "icon"))"
            }),
        KnownBug(
            BugText(
                name: "an offline relaunch shows only placeholders",
                expected: "every visible row shows its icon after relaunching offline",
                hint: "Read the icon from the Caches folder before thinking of the network: offline, it is all there is.",
                why:
                    "Offline, the relaunched app has nothing in memory and the network fails: only what was kept on "
                    + "disk can be shown."),
            fixedIn: 6, scenario: .offlineRelaunch,
            measure: Measure(
                name: "visibleRowsAtEnd − ownIconsAtEnd", unit: "row without its icon at the end",
                units: "rows without their icon at the end") {
                $0.visibleRowsAtEnd == 0 ? nil : Double($0.visibleRowsAtEnd - $0.ownIconsAtEnd)
            }),
        KnownBug(
            BugText(
                name: "downloads under way at a memory warning deliver after it",
                expected: "no icon delivered after the warning by a download started before it",
                hint:
                    "Make each download an `Operation` subclass whose `main()` checks `isCancelled` before and after "
                    + "the fetch; on a memory warning call `queue.cancelAllOperations()` and empty the pool.",
                why:
                    "Cancelling only asks: a block operation that never looks at `isCancelled` runs to the end and "
                    + "delivers anyway, filling the cache the warning just emptied. An operation of your own can "
                    + "check, before it starts the fetch and after it returns."),
            fixedIn: 7, scenario: .memoryWarningMidDownload,
            measure: Measure(name: "staleDeliveries", unit: "icon delivered after the warning") {
                Double($0.staleDeliveries)
            }),
        KnownBug(
            BugText(
                name: "waiting downloads start after a memory warning",
                expected: "no download starts after the warning",
                hint:
                    "On a memory warning call `queue.cancelAllOperations()`: a waiting operation that is cancelled "
                    + "never starts its `main()`, if `main()` checks `isCancelled` first.",
                why:
                    "Downloads queued for rows the user scrolled past wait their turn and start after the warning, "
                    + "for icons nobody is looking at."),
            fixedIn: 7, scenario: .memoryWarningMidDownload,
            measure: Measure(name: "requestsAfterMemoryWarning", unit: "download started after the warning") {
                $0.requestsAfterMemoryWarning.map(Double.init)
            }),
        KnownBug(
            BugText(
                name: "downloads start while the user scrolls",
                expected: "no download started while scrolling · every row shows its icon once the table rests",
                hint:
                    "Suspend the queue in `scrollViewWillBeginDragging` and resume it when the table comes to rest "
                    + "(`scrollViewDidEndDragging(_:willDecelerate: false)`, `scrollViewDidEndDecelerating`).",
                why:
                    "Downloads compete with the scroll for the CPU. Suspending the queue while the finger is down "
                    + "stops it from starting operations (running ones carry on); the rows scrolled past still "
                    + "download, after the drag."),
            fixedIn: 7, scenario: .standard,
            measure: Measure(name: "requestsStartedWhileScrolling", unit: "download started while scrolling") {
                Double($0.requestsStartedWhileScrolling)
            },
            conditions: [.downloads(on: .standard), .everyRowShowsItsIcon(on: .standard)]),
        KnownBug(
            BugText(
                name: "downloads start while the table still glides",
                expected: "no download started while the table glides after a flick",
                hint:
                    "Resume the queue in `scrollViewDidEndDragging` only when `decelerate` is false, and otherwise in "
                    + "`scrollViewDidEndDecelerating`: a flick goes on moving after the finger lifts.",
                why:
                    "After a flick the table glides on: the finger is up, the scroll is not over. A queue resumed when "
                    + "the finger lifts starts its downloads during the glide, the very competition the suspension was "
                    + "for. Some tutorials resume there."),
            fixedIn: 7, origin: .variant(flag: "resume-on-drag-end"), scenario: .fastScrollSlowRows,
            measure: Measure(name: "requestsStartedWhileScrolling", unit: "download started while scrolling") {
                Double($0.requestsStartedWhileScrolling)
            }),
        KnownBug(
            BugText(
                name: "a thread is blocked for every download in flight",
                expected: "no thread waits in the network: a fetch that blocks none",
                hint:
                    "Make the download an asynchronous operation over `network.fetch(_:)`: `start()` begins the "
                    + "fetch and returns; the operation finishes, announcing `isExecuting` and `isFinished`, when "
                    + "the fetch calls back.",
                why:
                    "`Data(contentsOf:)` holds its thread until the answer comes: three downloads at once hold three "
                    + "threads doing nothing. An asynchronous operation holds none while it waits, as "
                    + "SDWebImage's downloader does over URLSession."),
            fixedIn: 10, scenario: .standard,
            measure: Measure(name: "peakBlockedThreads", unit: "thread blocked at once") {
                Double($0.peakBlockedThreads)
            }),
        KnownBug(
            BugText(
                name: "a second row on a shared icon stays empty",
                expected: "every row shows its icon, one request per URL",
                hint:
                    "Let every caller of a URL wait on the one download under way (a token per caller), and cancel "
                    + "the download only when its last caller has gone.",
                why:
                    "A pool keyed by URL gives the second row nothing to wait on: it finds the download under way, "
                    + "starts none, and is never told when the first one ends, so it keeps its placeholder."),
            fixedIn: 10, scenario: .sharedIcon,
            measure: Measure(
                name: "visibleRowsAtEnd − ownIconsAtEnd", unit: "row without its icon at the end",
                units: "rows without their icon at the end") {
                Double($0.visibleRowsAtEnd - $0.ownIconsAtEnd)
            }),
        KnownBug(
            BugText(
                name: "the UI is touched off the main queue",
                expected: "no main-queue violation in any run",
                hint:
                    "Touch the table, its cells, and whatever `cellForRowAt` reads only inside "
                    + "`OperationQueue.main.addOperation { … }`.",
                why:
                    "UIKit objects (here TableKit's) may only be used on the main queue. TableKit records every "
                    + "touch from another thread, like Xcode's Main Thread Checker."),
            fixedIn: 2, origin: .hastyFix, scenario: .standard,
            measure: Measure(name: "mainThreadViolations", unit: "main-queue violation") {
                Double($0.mainThreadViolations)
            },
            shape: Shape({ $0.mainThreadViolations > 0 }) { counted($0.mainThreadViolations, "main-queue violation") }),
    ]

    public static func named(_ name: String) -> KnownBug? {
        all.first { $0.name == name }
    }
}

extension Report {
    /// Fewer files in the disk cache than icons it downloaded (the ones that
    /// only failed aside): two icons were written under one name.
    var iconsShareFiles: Bool {
        diskCacheFiles > 0 && diskCacheFiles + failedRequests < uniqueURLs
    }
}
