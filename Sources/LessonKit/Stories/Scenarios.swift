/// The named scripts, shared by the lesson executables and the tests, so a
/// test measures exactly what a learner watches.
extension Scenario {
    public static let all: [Scenario] = [
        .standard, .fastScrollSlowRows, .offlineBrowse, .leaveWhileLoading, .failOnce, .relaunch, .offlineRelaunch,
        .memoryWarningMidDownload, .memoryWarningThenBack, .memoryWarningThenScroll, .scrollBackOverSlowRow, .scrollBackWhileLoading,
        .scrollEndToEnd, .sharedIcon, .sharedIconReuse, .brokenIcon, .relaunchLater, .relaunchThenScrollBack,
        .flickThenPeek,
    ]

    public static func named(_ name: String) -> Scenario? {
        all.first { $0.name == name }
    }

    /// Load the first screen, scroll down 20 rows, scroll back, then a memory warning.
    public static let standard = Scenario(
        name: "standard",
        summary: "first screen, scroll down 20 rows and back, then a memory warning",
        steps: [
            .settle(timeout: 10), .drag(toRow: 20, seconds: 1.5), .settle(timeout: 10),
            .drag(toRow: 0, seconds: 1.5), .settle(timeout: 10), .memoryWarning, .pause(seconds: 0.5),
        ])

    /// Rows 10 and below take 5–10 s; the user flicks past them and back before they arrive.
    public static let fastScrollSlowRows: Scenario = {
        var scenario = Scenario(
            name: "fast-scroll-slow-rows",
            summary: "rows 10+ take 5–10 s; flick down past them, back up, and down again before they arrive",
            steps: [
                .settle(timeout: 3), .fling(toRow: 30, seconds: 1), .pause(seconds: 0.5),
                .fling(toRow: 6, seconds: 1), .pause(seconds: 0.5), .fling(toRow: 14, seconds: 1),
                .settle(timeout: 60),
            ])
        scenario.slowRows = 10..<Int.max
        return scenario
    }()

    /// The race run's story (`lessons check`): `fast-scroll-slow-rows`, then,
    /// while the rows on screen load, a screen away and back in one gesture,
    /// every 3 s for 15 s: the main queue reads rows whose downloads run, with
    /// no scroll end between (code that starts and cancels downloads only when
    /// the table rests has nothing else to order the two).
    public static let flickThenPeek: Scenario = {
        let peekAndWait: [Step] = [.peek(toRow: 24, seconds: 1), .pause(seconds: 2)]
        let peeks = Array(repeating: peekAndWait, count: 5).joined()
        var scenario = Scenario(
            name: "flick-then-peek",
            summary:
                "fast-scroll-slow-rows, then, while rows 14+ load, drag a screen down and back in one gesture, five times",
            steps: fastScrollSlowRows.steps.dropLast() + [.pause(seconds: 1)] + peeks + [.settle(timeout: 60)])
        scenario.slowRows = fastScrollSlowRows.slowRows
        return scenario
    }()

    /// The network is down: what does the app do while the user waits?
    public static let offlineBrowse: Scenario = {
        var scenario = Scenario(
            name: "offline",
            summary: "offline from the start: show the first screen, scroll 10 rows, wait 3 s",
            steps: [.pause(seconds: 1), .drag(toRow: 10, seconds: 1), .pause(seconds: 3)])
        scenario.startsOffline = true
        return scenario
    }()

    /// The user leaves the screen while slow icons are still loading: is the controller freed?
    public static let leaveWhileLoading: Scenario = {
        var scenario = Scenario(
            name: "leave-while-loading",
            summary: "rows 10+ are slow; scroll to them and leave the screen while they load",
            steps: [.settle(timeout: 3), .drag(toRow: 12, seconds: 0.5), .pause(seconds: 0.5)])
        scenario.slowRows = 10..<Int.max
        return scenario
    }()

    /// Row 2's icon fails once, then works: is it ever asked for again?
    public static let failOnce: Scenario = {
        var scenario = Scenario(
            name: "fail-once",
            summary: "row 2's icon fails the first time; scroll away and back: does it load?",
            steps: [
                .settle(timeout: 5), .drag(toRow: 12, seconds: 1), .settle(timeout: 5), .drag(toRow: 0, seconds: 1),
                .settle(timeout: 5),
            ])
        scenario.rowRules = [(rows: [2], behavior: .failFirst(1))]
        return scenario
    }()

    /// Load, then kill and restart the app: does it download everything again?
    public static let relaunch = Scenario(
        name: "relaunch",
        summary: "load the first screen, relaunch the app, load it again",
        steps: [.settle(timeout: 10), .relaunch, .settle(timeout: 10)])

    /// Relaunch, then scroll away from the icons found on disk and back: are
    /// they read from disk again, or were they kept in memory?
    public static let relaunchThenScrollBack = Scenario(
        name: "relaunch-then-scroll-back",
        summary: "load the first screen, relaunch the app, scroll down 10 rows and back",
        steps: [
            .settle(timeout: 10), .relaunch, .settle(timeout: 10), .drag(toRow: 10, seconds: 1),
            .settle(timeout: 10), .drag(toRow: 0, seconds: 1), .settle(timeout: 10),
        ])

    /// Load, go offline, relaunch: does the app show anything? Each screen
    /// is held a moment: the story is over in 1.6 s without, too fast to see.
    public static let offlineRelaunch = Scenario(
        name: "offline-relaunch",
        summary: "load the first screen, go offline, relaunch the app",
        steps: [
            .settle(timeout: 10), .pause(seconds: 1), .goOffline, .relaunch, .settle(timeout: 3), .pause(seconds: 2),
        ])

    /// A memory warning arrives while slow downloads are still running.
    public static let memoryWarningMidDownload: Scenario = {
        var scenario = Scenario(
            name: "memory-warning-mid-download",
            summary: "rows 10+ are slow; scroll to them, get a memory warning while they load",
            steps: [
                .settle(timeout: 3), .drag(toRow: 14, seconds: 0.5), .pause(seconds: 1), .memoryWarning,
                .settle(timeout: 12),
            ])
        scenario.slowRows = 10..<Int.max
        return scenario
    }()

    /// `memory-warning-mid-download`, then the user scrolls the rows out of view
    /// and back: the rows whose downloads the warning stopped are asked for
    /// again (a row that stays on screen is never asked again).
    /// What a fixed step 7 does next: memory freed, nothing stale delivered,
    /// and the downloads wait for the drag to end.
    public static let memoryWarningThenBack: Scenario = {
        var scenario = Scenario(
            name: "memory-warning-then-back",
            summary: "rows 10+ are slow; a memory warning while they load, then scroll up 10 rows and back: do they load?",
            steps: [
                .settle(timeout: 3), .drag(toRow: 14, seconds: 0.5), .pause(seconds: 1), .memoryWarning,
                .settle(timeout: 12), .drag(toRow: 4, seconds: 1), .drag(toRow: 14, seconds: 1),
                .settle(timeout: 40),
            ])
        scenario.slowRows = 10..<Int.max
        return scenario
    }()

    /// The standard scroll, a memory warning, then the same scroll again: what
    /// the warning freed has to come back when its rows are shown again.
    /// Latencies spread ±10 %, as a real network's do.
    public static let memoryWarningThenScroll: Scenario = {
        var scenario = Scenario(
            name: "memory-warning-then-scroll",
            summary: "scroll down 20 rows and back, a memory warning, then down again: do freed icons come back?",
            steps: [
                .settle(timeout: 10), .drag(toRow: 20, seconds: 1.5), .settle(timeout: 10),
                .drag(toRow: 0, seconds: 1.5), .settle(timeout: 10), .memoryWarning,
                .drag(toRow: 20, seconds: 1.5), .settle(timeout: 10),
            ])
        scenario.jitter = 0.1
        return scenario
    }()

    /// A slow row scrolls away and back while its icon is still loading: is it
    /// downloaded twice at once? Latencies spread ±10 %, as a real network's do.
    public static let scrollBackOverSlowRow: Scenario = {
        var scenario = Scenario(
            name: "scroll-back-over-slow-row",
            summary: "rows 10+ take 5–10 s; show row 10, scroll it away and back while it loads, wait for it",
            steps: [
                .settle(timeout: 5), .drag(toRow: 3, seconds: 0.5), .pause(seconds: 1), .drag(toRow: 1, seconds: 0.5),
                .drag(toRow: 3, seconds: 0.5), .pause(seconds: 10),
            ])
        scenario.slowRows = 10..<Int.max
        scenario.jitter = 0.1
        return scenario
    }()

    /// One slow row scrolls out of view and back while its icon loads: is it downloaded twice at once?
    public static let scrollBackWhileLoading: Scenario = {
        var scenario = Scenario(
            name: "scroll-back-while-loading",
            summary: "row 8's icon is slow; nudge it out of view and back twice while it loads",
            steps: [
                .settle(timeout: 5), .drag(toRow: 1, seconds: 0.5), .drag(toRow: 0, seconds: 0.5),
                .drag(toRow: 1, seconds: 0.5), .drag(toRow: 0, seconds: 0.5), .drag(toRow: 1, seconds: 0.5),
                .settle(timeout: 12),
            ])
        scenario.slowRows = 8..<9
        return scenario
    }()

    /// The harness's own test: drag from the first row to the last, however
    /// long the catalog (`--catalog`), at one steady pace. A frame's work must
    /// depend on the rows on screen, not on the rows in the catalog.
    public static let scrollEndToEnd = Scenario(
        name: "scroll-end-to-end",
        summary: "load the first screen, drag steadily to the last row of the catalog, settle",
        steps: [.settle(timeout: 5), .drag(toRow: .infinity, seconds: 60), .settle(timeout: 5)])

    /// Two rows show one icon (the same URL, as a CDN serves one avatar to
    /// every post of a user): one download, and do both rows get it?
    public static let sharedIcon: Scenario = {
        var scenario = Scenario(
            name: "shared-icon",
            summary: "rows 2 and 5 show the same icon URL: is it downloaded once, and do both rows show it?",
            steps: [.settle(timeout: 5)])
        scenario.sharedIcons = [5: 2]
        return scenario
    }()

    /// Two rows wait for one slow download; one of them scrolls away and its
    /// cell is reused for another row: does the other still get the icon?
    public static let sharedIconReuse: Scenario = {
        var scenario = Scenario(
            name: "shared-icon-reuse",
            summary:
                "rows 0 and 6 show one icon that takes 3 s; scroll 2 rows down while it loads, row 0's cell is reused: "
                + "does row 6 still get it?",
            steps: [.settle(timeout: 1), .drag(toRow: 2, seconds: 0.5), .settle(timeout: 5)])
        scenario.sharedIcons = [6: 0]
        scenario.rowRules = [(rows: [0], behavior: .slow(3...3))]
        return scenario
    }()

    /// One icon is broken for good: how often does the app ask for it?
    public static let brokenIcon: Scenario = {
        var scenario = Scenario(
            name: "broken-icon",
            summary:
                "row 2's icon never decodes (a corrupt body); scroll away and back twice: how often is it fetched?",
            steps: [
                .settle(timeout: 3), .drag(toRow: 12, seconds: 1), .settle(timeout: 3), .drag(toRow: 0, seconds: 1),
                .settle(timeout: 3), .drag(toRow: 12, seconds: 1), .settle(timeout: 3), .drag(toRow: 0, seconds: 1),
                .settle(timeout: 3),
            ])
        scenario.rowRules = [(rows: [2], behavior: .corrupt)]
        return scenario
    }()

    /// The app is left alone for a while before it is opened again: are the
    /// files on disk still good, or too old to use?
    public static let relaunchLater = Scenario(
        name: "relaunch-later",
        summary: "load the first screen, leave the app for 10 s, relaunch it: are the icons on disk still used?",
        steps: [.settle(timeout: 10), .pause(seconds: 10), .relaunch, .settle(timeout: 10)])
}
