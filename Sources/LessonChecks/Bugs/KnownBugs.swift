import LessonKit

extension KnownBug {
    /// Every bug the image-list steps fix, in the order the course meets them.
    public static let all: [KnownBug] = [
        KnownBug(
            text: BugText(
                name: "downloads freeze the main queue",
                expected: "the main queue never stalls · every visible row shows its icon at the end",
                why:
                    "Every icon is downloaded inside `cellForRowAt`, on the main queue: nothing else runs there "
                    + "(no frame, no touch) until it returns. The main queue should only *start* downloads and "
                    + "*receive* images; the waiting belongs on a queue's worker threads, where it blocks nobody "
                    + "the user can see. Hopping with `DispatchQueue.global().sync` moves the fetch, not the wait.",
                hints: Hints(
                    question:
                        "Which queue runs `cellForRowAt`, and what does it wait for before it can return? (A fetch "
                        + "moved with `DispatchQueue.global().sync` is still waited for there.)",
                    place: CodePlace(
                        "cellForRowAt", in: "AppsViewController.swift", role: "the method that makes each row's cell"),
                    api:
                        "An `OperationQueue` of your own runs blocks on its worker threads: `queue.addOperation { … }` "
                        + "returns at once. The image comes back to the main queue in `OperationQueue.main.addOperation { "
                        + "… }`. A `sync` hop (`DispatchQueue.global().sync`) does not help: it waits until its block has "
                        + "run.",
                    code: [
                        .line("lazy var queue = OperationQueue()", in: "AppsViewController.swift"),
                        .block("queue.addOperation {", in: "AppsViewController.swift"),
                    ])),
            fixedIn: 2, scenario: .standard,
            measure: Measure(.maxMainStallMs, unit: "ms", format: { "longest main-queue stall \(Int($0)) ms" }),
            conditions: [
                .downloads(on: .standard), .everyRowShowsItsIcon(on: .standard),
                // A `sync` hop runs its block on the calling thread: the harness counts it there.
                Condition(on: .standard, { $0.requestsOnMainQueue == 0 }) {
                    "\($0.requestsOnMainQueue) of \(counted($0.requests, "request")) made on the main queue's thread "
                        + "(in `cellForRowAt`, or in a `sync` hop from it)"
                },
            ],
            shape: Shape({ $0.maxMainStallMs > 0 }) { "the main queue stalled \(Int($0.maxMainStallMs)) ms" }),
        KnownBug(
            text: BugText(
                name: "cells stay blank while their icon loads",
                expected: "frames with a placeholder, and no blank frame",
                why:
                    "A placeholder first: the row shows a grey tile at once instead of nothing, then the icon when "
                    + "its operation hands it back through `OperationQueue.main`.",
                hints: Hints(
                    question:
                        "What does a row show between the moment it appears and the moment its icon arrives?",
                    place: CodePlace(
                        "cell.imageView.image", in: "AppsViewController.swift",
                        role: "where a row's cell gets its image"),
                    api:
                        "`Image.placeholder` is a grey tile made for this: give it to `cell.imageView.image` before the "
                        + "download starts.",
                    code: [
                        .line("cell.imageView.image = Image.placeholder", in: "AppsViewController.swift")
                    ])),
            fixedIn: 2, scenario: .standard,
            measure: Measure(.blankFrames, unit: "blank frame"),
            conditions: [
                Condition(on: .standard, { $0.placeholderFrames > 0 }) {
                    counted($0.placeholderFrames, "frame") + " with a placeholder"
                }
            ],
            shape: Shape({ $0.blankFrames > 0 }) { counted($0.blankFrames, "blank frame") }),
        KnownBug(
            text: BugText(
                name: "every scroll back downloads the icons again",
                expected: "one request per icon · every row shows its icon at the end",
                why:
                    "Nothing keeps the image: scrolling back over rows already loaded starts their downloads again. "
                    + "An icon downloaded once should be kept, and `cellForRowAt` should use it before it thinks of "
                    + "the network.",
                hints: Hints(
                    question:
                        "When a row scrolls back into view, where does `cellForRowAt` look for the icon it downloaded a "
                        + "moment ago?",
                    place: CodePlace(
                        "struct AppInfo", in: "AppInfo.swift", role: "where your code keeps each row's data"),
                    api:
                        "Keep the image on the model: `AppInfo` becomes a `final class` (a struct is copied into the "
                        + "block, and the copy would keep it) with `var image: Image?`, set when the download ends; "
                        + "`cellForRowAt` shows it and returns before it thinks of the network.",
                    code: [
                        .line("final class AppInfo: Decodable {", in: "AppInfo.swift"),
                        .line("var image: Image?", in: "AppInfo.swift"),
                        .block("if let image = app.image {", in: "AppsViewController.swift"),
                        .line("app.image = data.flatMap { Image(data: $0) }", in: "AppsViewController.swift"),
                    ])),
            fixedIn: 3, scenario: .standard,
            measure: Measure(name: "requests − uniqueURLs", unit: "repeated download") {
                Double($0.requests - $0.uniqueURLs)
            },
            // The downloads must have worked, judged by the rows: a download cancelled on the way (its cell
            // reused, from step 10 on) counts as failed in the network's tally, and is no repeat.
            conditions: [.downloads(on: .standard), .everyRowShowsItsIcon(on: .standard)],
            // Its repeats follow an icon the table showed: one dropped before any row showed it is another story.
            shape: Shape({ $0.requestsAfterRelaunch == nil && $0.iconRequests.downloadedAgainAfterShown > 0 }) {
                counted($0.iconRequests.downloadedAgainAfterShown, "icon") + " downloaded again after a row had shown it"
            }),
        KnownBug(
            text: BugText(
                name: "a late icon lands in a reused cell of another row",
                expected: "no frame with another row's icon on the fast scroll · every row its own icon at the end",
                why:
                    "The closure captured `cell`, the object, not the row. Cells are reused: by the time row 10's "
                    + "slow icon arrives, its cell has scrolled out and back in as row 19, and the icon is drawn "
                    + "there. Reloading the *row* asks `cellForRowAt` again, whatever cell shows it now.",
                hints: Hints(
                    question:
                        "The download's block captured `cell`. When the icon arrives seconds later, which row does that "
                        + "cell show?",
                    place: CodePlace(
                        "OperationQueue.main.addOperation", in: "AppsViewController.swift",
                        role: "where the downloaded icon is handed to the main queue", presumes: .mainQueue),
                    api:
                        "`tableView.reloadRows(at: [indexPath])` asks `cellForRowAt` again for that row, whatever cell "
                        + "shows it now (or none, if it has scrolled away); with the icon kept on the model, "
                        + "`cellForRowAt` shows it.",
                    code: [
                        .line("self.tableView.reloadRows(at: [indexPath])", in: "AppsViewController.swift")
                    ])),
            fixedIn: 3, scenario: .fastScrollSlowRows,
            measure: Measure(.wrongImageFrames, unit: "frame with another row's icon"),
            conditions: [.downloads(on: .fastScrollSlowRows), .everyRowShowsItsIcon(on: .standard)],
            shape: Shape({ $0.wrongImageFrames > 0 && !$0.iconsShareFiles }) {
                counted($0.wrongImageFrames, "frame") + " with another row's icon"
            }),
        KnownBug(
            text: BugText(
                name: "a memory warning frees nothing",
                expected: "no image byte kept after the warning · every row shows its icon again at the end",
                why:
                    "The system asked the app to free memory, and it freed nothing: its icons are spread over sixty "
                    + "model objects, and `didReceiveMemoryWarning` has no way to find them. Keep the cache in one "
                    + "place you own, so one line can empty it; rows shown again download theirs again.",
                hints: Hints(
                    question:
                        "When the system asks for memory back, which object could let go of every icon at once, and "
                        + "where does it hear the request?",
                    place: CodePlace(
                        "var image: Image?", in: "AppInfo.swift", role: "where your code keeps the icons it downloaded",
                        presumes: CodePlace.Presumption(
                            CodePlace.Presumption.keptIcons,
                            otherwise: "where your code would keep the icons it downloaded")),
                    api:
                        "One dictionary the controller owns, `[String: Image]` keyed by icon URL, instead of a property "
                        + "on each model object; `override func didReceiveMemoryWarning()` empties it with `removeAll()`.",
                    code: [
                        .line("var imageCache: [String: Image] = [:]", in: "AppsViewController.swift"),
                        .line("if let image = imageCache[app.icon] {", in: "AppsViewController.swift"),
                        .block("override func didReceiveMemoryWarning() {", in: "AppsViewController.swift"),
                    ])),
            fixedIn: 4, scenario: .memoryWarningThenScroll,
            measure: Measure(
                name: "liveImageBytes", unit: "B", format: { "\(Int($0)) image bytes kept after the warning" }
            ) { $0.liveImageBytes.map(Double.init) },
            conditions: [.everyRowShowsItsIcon(on: .memoryWarningThenScroll)]),
        KnownBug(
            text: BugText(
                name: "a slow icon scrolled away and back is downloaded twice at once",
                expected: "no duplicate in flight · one request per icon · every row shows its icon at the end",
                why:
                    "Nothing remembers a download in flight: when row 8 comes back while its slow icon is still "
                    + "loading, `cellForRowAt` finds no icon and starts a second download of the same URL. An "
                    + "operation pool (one operation per URL, running or waiting) makes the second visit wait for "
                    + "the first download.",
                hints: Hints(
                    question:
                        "Row 8 comes back while its icon is still downloading. How could `cellForRowAt` know a download "
                        + "of that URL is already under way?",
                    place: CodePlace(
                        "queue.addOperation", in: "AppsViewController.swift", role: "where your download starts"),
                    api:
                        "An operation pool: `var operations: [String: Operation]`, the download under way for each icon "
                        + "URL. Make the download a `BlockOperation`, put it in the pool before `queue.addOperation(_:)`, "
                        + "look there before starting one, and take it out when the download ends.",
                    code: [
                        .line("var operations: [String: Operation] = [:]", in: "AppsViewController.swift"),
                        .block("if operations[app.icon] != nil {", in: "AppsViewController.swift"),
                        .lines(
                            from: "operations[app.icon] = operation", through: "queue.addOperation(operation)",
                            in: "AppsViewController.swift"),
                    ])),
            fixedIn: 5, scenario: .scrollBackWhileLoading,
            measure: Measure(.duplicateRequests, unit: "duplicate in flight"),
            conditions: [
                Condition(on: .scrollBackWhileLoading, { $0.uniqueURLs > 0 && $0.requests == $0.uniqueURLs }) {
                    "\(counted($0.requests, "request")) for \(counted($0.uniqueURLs, "icon"))"
                },
                .everyRowShowsItsIcon(on: .scrollBackWhileLoading),
            ],
            shape: Shape({ $0.duplicateRequests > 0 }) { counted($0.duplicateRequests, "duplicate") + " in flight" }),
        KnownBug(
            text: BugText(
                name: "offline, a failed download asks again, forever",
                expected: "one request per icon shown, however long the user waits",
                why:
                    "Offline, every download fails at once; the completion reloads the row anyway; `cellForRowAt` "
                    + "finds no icon and starts another download: a loop that only ends with the app. No icon, no "
                    + "reload.",
                hints: Hints(
                    question:
                        "Offline, the download ends with no image, and the row is reloaded anyway. What does the reload "
                        + "ask `cellForRowAt` to do next?",
                    place: CodePlace(
                        "reloadRows", in: "AppsViewController.swift", role: "where your download ends"),
                    api:
                        "Reload the row only when the download brought an image: `guard let image else { return }` "
                        + "before `reloadRows(at:)`.",
                    code: [
                        .lines(
                            from: "guard let image else { return }", through: "tableView.reloadRows(at: [indexPath])",
                            in: "AppsViewController.swift")
                    ])),
            fixedIn: 5, scenario: .offlineBrowse,
            measure: Measure(name: "requests − uniqueURLs", unit: "repeated request") {
                Double($0.requests - $0.uniqueURLs)
            },
            conditions: [.downloads(on: .offlineBrowse)],
            // Asked again through the table: each failure reloads its row, which asks for its cell again.
            shape: Shape({ $0.failedRequests > 2 * max(1, $0.uniqueURLs) && !$0.retriedWithoutTheTable }) {
                "\(counted($0.failedRequests, "failed request")) for \(counted($0.uniqueURLs, "icon")): asked again and again"
            }),
        KnownBug(
            text: BugText(
                name: "the controller is never freed while its downloads run",
                expected: "the controller freed when the user leaves, slow downloads still out",
                why:
                    "The queue holds the operation, the operation holds its block, and the block holds `self`: the "
                    + "controller lives until the last slow download ends, long after the user has left. On Linux a "
                    + "`completionBlock` that holds it keeps it for good: corelibs never clears that block once it "
                    + "has run, where iOS lets it go when the operation finishes.",
                hints: Hints(
                    question:
                        "Whatever runs a download holds its closures until it ends: a queue its operations and each "
                        + "operation its block (on Linux its `completionBlock` too, for good: it is never cleared), a "
                        + "fetch its completion. What do those closures hold?",
                    aside: CodeAside(
                        "(A `[weak self]` on an inner closure only makes the closure around it hold `self`, to make "
                            + "the weak one from.)", when: \.hasWeakSelfInsideStrongClosure),
                    place: CodePlace(
                        "queue.addOperation", in: "AppsViewController.swift", role: "where your download starts"),
                    api:
                        "A capture list: `[weak self]` in the operation's block and in the block it hands to the main "
                        + "queue. Copy what the download needs into a local constant first (`let network = self.network`), "
                        + "so it needs no `self`.",
                    code: [
                        .lines(
                            from: "let network = self.network",
                            through: "let operation = BlockOperation { [weak self] in", in: "AppsViewController.swift"),
                        .lines(
                            from: "OperationQueue.main.addOperation { [weak self] in", through: "}",
                            in: "AppsViewController.swift"),
                    ])),
            fixedIn: 5, scenario: .leaveWhileLoading,
            measure: Measure(
                name: "controllerFreed", unit: "", format: { $0 == 1 ? "controller freed" : "controller kept" },
                short: { $0 == 1 ? "freed" : "kept" }
            ) { $0.controllerFreed ? 1 : 0 },
            presence: .below(1),
            // Kept with nothing out, it is still kept (on Linux a `completionBlock` holds it for good); freed
            // with nothing out, nothing was there to keep it.
            situation: Situation({ !$0.controllerFreed || $0.iconRequests.inFlightAtEnd > 0 }) { _ in
                "no download was still out when the user left, so none could keep the controller"
            }),
        KnownBug(
            text: BugText(
                name: "a failed icon is never tried again",
                expected: "row 2's icon (which fails once) shown at the end · every row its own icon",
                why:
                    "A pool that removes an operation only when its download worked keeps a failed one forever: "
                    + "every later visit to the row finds it there and waits for a download that will never come "
                    + "back.",
                hints: Hints(
                    question:
                        "When a download fails, is its operation taken out of the pool? What does the next visit to the "
                        + "row find there?",
                    place: CodePlace(
                        "downloadFinished", in: "AppsViewController.swift", role: "where your download ends"),
                    api:
                        "Take the entry out of the pool (`operations[icon] = nil`) however the download ended, before "
                        + "looking at the image: \"if there is an if, there must be an else\".",
                    code: [
                        .lines(
                            from: "func downloadFinished(icon: String, image: Image?, at indexPath: IndexPath) {",
                            through: "guard let image else { return }", in: "AppsViewController.swift")
                    ])),
            fixedIn: 5, origin: .variant(flag: "naive-pool"), scenario: .failOnce,
            measure: Measure(
                name: "visibleRowsAtEnd − ownIconsAtEnd", unit: "row without its icon at the end",
                units: "rows without their icon at the end") {
                Double($0.visibleRowsAtEnd - $0.ownIconsAtEnd)
            },
            // Never tried again: no icon was asked for again after a download of it failed (offline, code that asks
            // again on each visit has placeholders at the end too, but not this shape).
            shape: Shape({
                $0.iconRequests.leftFailed > 0 && $0.ownIconsAtEnd < $0.visibleRowsAtEnd && $0.wrongImageFrames == 0
                    && !$0.iconRequests.icons.contains { $0.downloads.dropLast().contains { $0.outcome == "failed" } }
            }) {
                "a row still shows its placeholder at the end, after \(counted($0.failedRequests, "failed request"))"
            },
            situation: Situation({ $0.failedRequests > 0 }) { _ in
                "no download failed (row 2's fails the first time it is asked for), so none had to be tried again"
            }),
        KnownBug(
            text: BugText(
                name: "a relaunch downloads every icon again",
                expected: "no request after the relaunch · every row its own icon",
                why:
                    "Memory is gone when the app is: a relaunched app that keeps icons only in a dictionary "
                    + "downloads them all again. Keep them in the Caches folder too: memory, then disk, then network.",
                hints: Hints(
                    question:
                        "What is left of the icons when the app is relaunched? Where could they be kept that memory is "
                        + "not?",
                    place: CodePlace(
                        "if let image = imageCache[app.icon]", in: "AppsViewController.swift",
                        role: "where a row's cell asks for its icon"),
                    api:
                        "The app's Caches folder (`environment.cachesDirectory`): write each downloaded icon's bytes "
                        + "there with `data.write(to: file, options: .atomic)`, and in `cellForRowAt` read them with "
                        + "`Data(contentsOf: file)` after memory and before the network.",
                    code: [
                        .line("cachesDirectory = environment.cachesDirectory", in: "AppsViewController.swift"),
                        .lines(
                            from: "let file = cacheFile(for: app.icon)", through: "}", in: "AppsViewController.swift"),
                        .block("if let data, image != nil {", in: "AppsViewController.swift"),
                    ])),
            fixedIn: 6, scenario: .relaunch,
            measure: Measure(.requestsAfterRelaunch, unit: "request after the relaunch"),
            conditions: [.everyRowShowsItsIcon(on: .relaunch)],
            shape: Shape({ ($0.requestsAfterRelaunch ?? 0) > 0 }) {
                counted($0.requestsAfterRelaunch ?? 0, "request") + " after the relaunch"
            }),
        KnownBug(
            text: BugText(
                name: "icons whose URLs end alike share one file on disk",
                expected: "one file per icon · no frame with another row's icon after the relaunch",
                why:
                    "The tutorials name the file by the URL's last path component, and four rows here end in "
                    + "`icon.png`: each download overwrites the one before, and after a relaunch those rows show "
                    + "whichever icon was written last.",
                hints: Hints(
                    question:
                        "`…/qq/icon.png` and `…/wechat/icon.png`: which file name does your code give each? Which part "
                        + "of the URL does the name come from?",
                    place: CodePlace(
                        "func cacheFileName(for icon: String)", in: "AppsViewController.swift",
                        role: "where your code names an icon's file",
                        presumes: CodePlace.Presumption(
                            CodePlace.Presumption.writtenFiles,
                            otherwise: "where your code would name an icon's file")),
                    api:
                        "Name the file from the whole URL: a hash of it that is the same in every run (Swift's "
                        + "`hashValue` is seeded per process; FNV-1a is a few lines), written in hex, which cannot hold "
                        + "`/` or `..`.",
                    code: [
                        .block("func cacheFileName(for icon: String) -> String {", in: "AppsViewController.swift")
                    ])),
            fixedIn: 6, origin: .variant(flag: "last-component-names"), scenario: .relaunch,
            measure: Measure(.wrongImageFrames, unit: "frame with another row's icon"),
            conditions: [
                Condition(on: .relaunch, { $0.diskCacheFiles == $0.uniqueURLs }) {
                    "\(counted($0.diskCacheFiles, "file")) on disk for \(counted($0.uniqueURLs, "icon"))"
                }
            ],
            shape: Shape({ $0.wrongImageFrames > 0 && $0.iconsShareFiles }) {
                "\(counted($0.wrongImageFrames, "frame")) with another row's icon, and "
                    + "\(counted($0.diskCacheFiles, "file")) on disk for \(counted($0.uniqueURLs, "icon"))"
            },
            situation: Situation({ $0.diskCacheFiles > 0 }) {
                "no file was written to the Caches folder (0 files on disk for \(counted($0.uniqueURLs, "icon"))), "
                    + "so no two icons could share one"
            }),
        KnownBug(
            text: BugText(
                name: "an offline relaunch shows only placeholders",
                expected: "every visible row shows its icon after relaunching offline",
                why:
                    "Offline, the relaunched app has nothing in memory and the network fails: only what was kept on "
                    + "disk can be shown.",
                hints: Hints(
                    question:
                        "Offline, after a relaunch, memory is empty and every download fails. What is left that could "
                        + "show an icon?",
                    place: CodePlace(
                        "if let image = imageCache[app.icon]", in: "AppsViewController.swift",
                        role: "where a row's cell asks for its icon"),
                    api:
                        "Read the Caches folder in `cellForRowAt`, before the network: `Data(contentsOf: file)`, then "
                        + "`Image(data:)`; bytes that do not decode count as a miss.",
                    code: [
                        .block(
                            "if let data = try? Data(contentsOf: file), let image = Image(data: data) {",
                            in: "AppsViewController.swift")
                    ])),
            fixedIn: 6, scenario: .offlineRelaunch,
            measure: Measure(
                name: "visibleRowsAtEnd − ownIconsAtEnd", unit: "row without its icon at the end",
                units: "rows without their icon at the end") {
                $0.visibleRowsAtEnd == 0 ? nil : Double($0.visibleRowsAtEnd - $0.ownIconsAtEnd)
            },
            // Placeholders after the offline relaunch: a row that showed another row's icon found a file, the wrong one.
            shape: Shape({
                $0.run.scenario == Scenario.offlineRelaunch.name && $0.ownIconsAtEnd < $0.visibleRowsAtEnd
                    && $0.wrongImageFrames == 0
            }) {
                "after the offline relaunch, \($0.visibleRowsAtEnd - $0.ownIconsAtEnd) of \($0.visibleRowsAtEnd) "
                    + "visible rows without their icon at the end, and no frame with another row's icon"
            }),
        KnownBug(
            text: BugText(
                name: "downloads under way at a memory warning deliver after it",
                expected: "no icon delivered after the warning by a download started before it",
                why:
                    "Cancelling only asks: a block operation that never looks at `isCancelled` runs to the end and "
                    + "delivers anyway, filling the cache the warning just emptied. An operation of your own can "
                    + "check, before it starts the fetch and after it returns.",
                hints: Hints(
                    question:
                        "A download already running when the memory warning comes carries on to the end. What could it "
                        + "ask before it hands its icon over?",
                    place: CodePlace(
                        "BlockOperation", in: "AppsViewController.swift",
                        role: "where your download hands its icon over"),
                    api:
                        "`cancel()` only sets `isCancelled`: the work must look at it. Write an `Operation` subclass "
                        + "whose `main()` checks `isCancelled` before the fetch and after it, and reports on the main "
                        + "queue to a `weak` delegate (a `BlockOperation` can do the same through a `[weak operation]` "
                        + "its block captures); `queue.cancelAllOperations()` in `didReceiveMemoryWarning()`.",
                    code: [
                        .line(
                            "class DownloadOperation: Operation, @unchecked Sendable {", in: "DownloadOperation.swift"),
                        .lines(
                            from: "override func main() {", through: "let image = data.flatMap { Image(data: $0) }",
                            in: "DownloadOperation.swift"),
                        .lines(
                            from: "queue.cancelAllOperations()", through: "imageCache.removeAll()",
                            in: "AppsViewController.swift"),
                    ])),
            fixedIn: 7, scenario: .memoryWarningMidDownload,
            measure: Measure(.staleDeliveries, unit: "icon delivered after the warning"),
            // A warning that stopped the waiting downloads, not the running ones: where one started after it,
            // nothing was cancelled at all, and that is the other bug's shape.
            shape: Shape({ $0.staleDeliveries > 0 && $0.requestsAfterMemoryWarning == 0 }) {
                counted($0.staleDeliveries, "icon") + " delivered after the warning, though none was downloaded after it"
            },
            situation: Situation({ $0.iconRequests.underWayAtWarnings > 0 }) { _ in
                "no download was under way when the memory warning came, so none could deliver after it"
            }),
        KnownBug(
            text: BugText(
                name: "waiting downloads start after a memory warning",
                expected: "no download starts after the warning",
                why:
                    "Downloads queued for rows the user scrolled past wait their turn and start after the warning, "
                    + "for icons nobody is looking at.",
                hints: Hints(
                    question:
                        "Downloads queued for rows the user scrolled past are still waiting when the warning comes. What "
                        + "tells the queue they are not wanted any more?",
                    place: CodePlace(
                        "didReceiveMemoryWarning", in: "AppsViewController.swift",
                        role:
                            "your table controller: it hears a memory warning in `didReceiveMemoryWarning()`, which it "
                            + "does not override yet"),
                    api:
                        "`queue.cancelAllOperations()` cancels the waiting operations too. The queue still starts each "
                        + "one, and a `main()` that checks `isCancelled` first returns at once. Empty the pool with it "
                        + "(`operations.removeAll()`): a cancelled entry left there would block its icon for good.",
                    code: [
                        .block("override func didReceiveMemoryWarning() {", in: "AppsViewController.swift"),
                        .lines(
                            from: "override func main() {", through: "if isCancelled { return }",
                            in: "DownloadOperation.swift"),
                    ])),
            fixedIn: 7, scenario: .memoryWarningMidDownload,
            measure: Measure(.requestsAfterMemoryWarning, unit: "download started after the warning"),
            // Stopped, the rows shown again must load again: a cancelled entry left in a pool blocks its icon.
            conditions: [.everyRowShowsItsIcon(on: .memoryWarningThenBack)],
            // Only with the stale deliveries: a download started after some warning (`standard` ends with one)
            // is no shape of its own.
            shape: Shape({ $0.staleDeliveries > 0 && ($0.requestsAfterMemoryWarning ?? 0) > 0 }) {
                "the warning stopped nothing: \(counted($0.staleDeliveries, "icon")) delivered after it, and "
                    + "\(counted($0.requestsAfterMemoryWarning ?? 0, "download")) started after it"
            }),
        KnownBug(
            text: BugText(
                name: "downloads start while the user scrolls",
                expected: "no download started while scrolling · every row shows its icon once the table rests",
                why:
                    "Downloads compete with the scroll for the CPU. Suspending the queue while the finger is down "
                    + "stops it from starting operations (running ones carry on); the rows scrolled past still "
                    + "download, after the drag.",
                hints: Hints(
                    question:
                        "While the finger drags the table, should a download start? Which calls tell the controller that "
                        + "a drag begins, and that the table is at rest again?",
                    place: CodePlace(
                        "class AppsViewController: TableViewController", in: "AppsViewController.swift",
                        role: "your table controller"),
                    api:
                        "The controller is the table's scroll delegate. `queue.isSuspended = true` in "
                        + "`scrollViewWillBeginDragging(_:)`; back to false in "
                        + "`scrollViewDidEndDragging(_:willDecelerate:)` when `decelerate` is false, and in "
                        + "`scrollViewDidEndDecelerating(_:)`. A suspended queue starts nothing; the downloads already "
                        + "running carry on.",
                    code: [
                        .lines(
                            from: "override func scrollViewWillBeginDragging(_ tableView: TableView) {",
                            through: "override func scrollViewDidEndDecelerating(_ tableView: TableView) {",
                            in: "AppsViewController.swift")
                    ])),
            fixedIn: 7, scenario: .standard,
            measure: Measure(.requestsStartedWhileScrolling, unit: "download started while scrolling"),
            conditions: [.downloads(on: .standard), .everyRowShowsItsIcon(on: .standard)]),
        KnownBug(
            text: BugText(
                name: "downloads start while the table still glides",
                expected: "no download started while the table glides after a flick",
                why:
                    "After a flick the table glides on: the finger is up, the scroll is not over. A queue resumed when "
                    + "the finger lifts starts its downloads during the glide, the very competition the suspension was "
                    + "for. Some tutorials resume there.",
                hints: Hints(
                    question:
                        "After a flick the finger is up, but the table goes on moving. Which scroll call says it has "
                        + "come to rest?",
                    place: CodePlace(
                        "scrollViewDidEndDragging", in: "AppsViewController.swift",
                        role:
                            "your table controller: it hears a drag end in "
                            + "`scrollViewDidEndDragging(_:willDecelerate:)`, which it does not have yet"),
                    api:
                        "`scrollViewDidEndDragging(_:willDecelerate:)` says whether the table glides on: resume there "
                        + "only when `decelerate` is false, and otherwise in `scrollViewDidEndDecelerating(_:)`, which "
                        + "comes when it stops.",
                    code: [
                        .line("if !decelerate { queue.isSuspended = false }", in: "AppsViewController.swift"),
                        .block(
                            "override func scrollViewDidEndDecelerating(_ tableView: TableView) {",
                            in: "AppsViewController.swift"),
                    ])),
            fixedIn: 7, origin: .variant(flag: "resume-on-drag-end"), scenario: .fastScrollSlowRows,
            measure: Measure(.requestsStartedWhileScrolling, unit: "download started while scrolling"),
            // The trap is resuming too early: a queue never held while the finger is down has nothing to
            // resume, and its downloads are the bug above's.
            situation: Situation({ $0.requests > 0 && $0.iconRequests.startedWhileFingerDown == 0 }) {
                $0.requests == 0
                    ? "no download was started on the fast scroll, so none could start while the table glides"
                    : "\(counted($0.iconRequests.startedWhileFingerDown, "download")) started while the finger was "
                        + "on the table: nothing holds them during a drag, so nothing can be let go too early "
                        + "(that is \"downloads start while the user scrolls\")"
            }),
        KnownBug(
            text: BugText(
                name: "a thread is blocked for every download in flight",
                expected: "no thread waits in the network: a fetch that blocks none",
                why:
                    "`Data(contentsOf:)` holds its thread until the answer comes: three downloads at once hold three "
                    + "threads doing nothing. An asynchronous operation holds none while it waits, as "
                    + "SDWebImage's downloader does over URLSession.",
                hints: Hints(
                    question:
                        "While an icon travels over the network, what is the thread that asked for it doing?",
                    place: CodePlace(
                        "network.data(contentsOf:", in: "DownloadOperation.swift",
                        role: "where your download fetches its icon"),
                    api:
                        "An asynchronous `Operation`: override `start()` (not `main()`), begin a fetch that blocks no "
                        + "thread (`network.fetch(_:progress:completion:)`), return at once, and finish when the fetch "
                        + "calls back. `isAsynchronous`, `isExecuting` and `isFinished` are then yours, announced with "
                        + "`willChangeValue(forKey:)` and `didChangeValue(forKey:)`.",
                    code: [
                        .line("public override var isAsynchronous: Bool { true }", in: "ImageDownloadOperation.swift"),
                        .lines(
                            from: "let task = network.fetch(url) { [self] received, expected in", through: "}",
                            in: "ImageDownloadOperation.swift"),
                    ])),
            fixedIn: 10, scenario: .standard,
            measure: Measure(.peakBlockedThreads, unit: "thread blocked at once")),
        KnownBug(
            text: BugText(
                name: "a second row on a shared icon stays empty",
                expected: "every row shows its icon, one request per URL",
                why:
                    "A pool keyed by URL gives the second row nothing to wait on: it finds the download under way, "
                    + "starts none, and is never told when the first one ends, so it keeps its placeholder.",
                hints: Hints(
                    question:
                        "Two rows show the same icon URL. The pool finds the first row's download under way and starts "
                        + "none: how does the second row hear when it ends?",
                    place: CodePlace(
                        "if operations[app.icon] != nil", in: "AppsViewController.swift",
                        role: "where a row starts its icon's download, or finds one under way"),
                    api:
                        "Callers, not rows, wait on a download: "
                        + "`ImageDownloader.downloadImage(with:options:progress:completion:)` joins a download under way "
                        + "and returns a `DownloadToken` per caller; every caller's completion runs when it ends, and "
                        + "`cancel(_:)` cancels the download only when its last caller has gone.",
                    code: [
                        .line("download.callers.append((id, progress, completion))", in: "ImageDownloader.swift"),
                        .lines(
                            from: "download.callers.removeAll { $0.id == token.id }",
                            through: "guard download.callers.isEmpty else { return nil }", in: "ImageDownloader.swift"),
                    ])),
            fixedIn: 10, scenario: .sharedIcon,
            measure: Measure(
                name: "visibleRowsAtEnd − ownIconsAtEnd", unit: "row without its icon at the end",
                units: "rows without their icon at the end") {
                Double($0.visibleRowsAtEnd - $0.ownIconsAtEnd)
            }),
        KnownBug(
            text: BugText(
                name: "the UI is touched off the main queue",
                expected: "no main-queue violation in any run",
                why:
                    "UIKit objects (here TableKit's) may only be used on the main queue. TableKit records every "
                    + "touch from another thread, like Xcode's Main Thread Checker.",
                hints: Hints(
                    question:
                        "Which thread runs the line that sets the image? A cell, a table, a label may be touched only on "
                        + "the main queue.",
                    place: CodePlace(
                        "cell.imageView.image", in: "AppsViewController.swift",
                        role: "where a row's cell gets its image"),
                    api:
                        "`OperationQueue.main.addOperation { … }` runs its block on the main queue: download on the "
                        + "queue's thread, then set the cell's image (or reload the row) inside that block.",
                    code: [
                        .block("OperationQueue.main.addOperation {", in: "AppsViewController.swift")
                    ])),
            fixedIn: 2, origin: .hastyFix, scenario: .standard,
            measure: Measure(.mainThreadViolations, unit: "main-queue violation"),
            shape: Shape({ $0.mainThreadViolations > 0 }) { counted($0.mainThreadViolations, "main-queue violation") }),
    ]

    public static func named(_ name: String) -> KnownBug? {
        all.first { $0.name == name }
    }
}

extension Report {
    /// On `memory-warning-then-back`: the rows the warning stopped, shown
    /// again, kept their placeholder, and nothing was downloaded after it.
    var rowsShownAgainAskedForNothing: Bool {
        run.scenario == Scenario.memoryWarningThenBack.name && self.requestsAfterMemoryWarning == 0
            && self.ownIconsAtEnd < self.visibleRowsAtEnd
    }

    /// Fewer files in the disk cache than icons it downloaded (the ones that
    /// only failed aside): two icons were written under one name.
    var iconsShareFiles: Bool {
        self.diskCacheFiles > 0 && self.diskCacheFiles + self.failedRequests < self.uniqueURLs
    }
}
