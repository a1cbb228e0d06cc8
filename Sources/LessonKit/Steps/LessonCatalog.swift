/// One step of the course, as `swift run lessons` lists it.
public struct LessonEntry: Sendable {
    public let number: Int
    /// The executable target and product that runs the step.
    public let target: String
    public let title: String
    /// The bug this step fixes (step 1: the problem it shows).
    public let fixes: String
    /// The one-sentence lesson printed at the end of a run.
    public let lesson: String
    /// What the closing line calls `lesson`: a workbench's is the task, never the step's fix.
    public var lessonHeading = "The lesson"
    public let defaultScenario: String
    /// The lesson text in `Lessons/`.
    public let text: String
    /// What this step leaves broken, and the step that takes it up: the hook a
    /// run ends with ("still broken → step 3: …").
    public var stillBroken: String? = nil
    /// Whether a run of the step's own scenario empties its disk cache first:
    /// for a step whose point is its downloads, which icons an earlier run left
    /// on disk would skip (steps 7 and 10). Other runs start with what is there,
    /// and their report says so.
    public var ownScenarioStartsCold = false
    /// What `lessons compare N` plays for this step: the step before it on a scenario; nil for a step with no
    /// table to compare (8 and 9 tell stories of their own).
    public var comparison: Comparison? = nil

    /// A step beside the step whose bug it fixes.
    public struct Comparison: Sendable {
        /// The image step before this one.
        public let before: Int
        /// The scenario both play; nil: this step's own.
        public var scenario: String? = nil
        /// A scenario played after it, for a fix that `scenario` cannot show.
        public var thenScenario: String? = nil
    }

    public var id: String { number < 10 ? "0\(number)" : "\(number)" }

    /// Whether the step is the image list (steps 1–7 and 10): its default scenario is
    /// one of the table scripts. The scoreboard, the bug matrix and the timeline
    /// pictures run every such step on the same script; steps that are not a
    /// table of icons (dependencies, the lottery machine) have scripts of their own.
    public var showsImageList: Bool { Scenario.named(defaultScenario) != nil }
}

/// Every step there is. A new step adds a line here and its target in Package.swift.
public enum LessonCatalog {
    public static let all: [LessonEntry] = [
        LessonEntry(
            number: 1, target: "Lesson01SyncLoad", title: "synchronous load",
            fixes: "— shows the problem: icons fetched on the main queue freeze the app",
            lesson: "Anything slow on the main queue freezes the screen: the first screen waits rows × latency.",
            defaultScenario: "standard", text: "Lessons/01-synchronous-load.md",
            stillBroken: "still broken → step 2: the download blocks the main queue, and cells stay blank until it ends"
        ),
        LessonEntry(
            number: 2, target: "Lesson02AsyncPlaceholder", title: "async with a placeholder",
            fixes: "the frozen main queue and blank cells",
            lesson: "Download on a background queue, touch the UI only on the main queue, show a placeholder first.",
            defaultScenario: "fast-scroll-slow-rows", text: "Lessons/02-async-with-placeholder.md",
            stillBroken:
                "still broken → step 3: every scroll back downloads the icons again, and a late icon lands in a reused cell of another row",
            // Step 1 on step 2's own scenario (slow rows) plays minutes of story, a slow download at a time on the
            // main queue; `standard` shows the same freeze at once, and ends soon.
            comparison: .init(before: 1, scenario: "standard")),
        LessonEntry(
            number: 3, target: "Lesson03ModelCache", title: "model-held cache",
            fixes: "re-downloads on every scroll back; a late icon landing in a reused cell of another row",
            lesson: "Keep what you downloaded, and reload the row rather than the cell you captured: cells are reused.",
            defaultScenario: "fast-scroll-slow-rows", text: "Lessons/03-model-held-cache.md",
            stillBroken: "still broken → step 4: a memory warning frees nothing, the icons are spread over the model",
            // On `fast-scroll-slow-rows` (the late icon in a reused cell) no row comes back: `standard` then shows
            // the icons kept, where step 2 downloads again every row that comes back.
            comparison: .init(before: 2, thenScenario: "standard")),
        LessonEntry(
            number: 4, target: "Lesson04CacheDictionary", title: "cache dictionary",
            fixes: "a memory warning that frees nothing",
            lesson: "Keep the cache in one place you own, so a memory warning can empty it.",
            defaultScenario: "memory-warning-then-scroll", text: "Lessons/04-cache-dictionary.md",
            stillBroken:
                "still broken → step 5: a slow icon is downloaded twice at once, offline a failed download asks again forever, the controller is never freed, and the cache is written from download threads",
            comparison: .init(before: 3)),
        LessonEntry(
            number: 5, target: "Lesson05OperationPool", title: "operation pool",
            fixes: "duplicate downloads; offline reload loop; failed icons never retried; a controller never freed; "
                + "the cache written from download threads (a data race)",
            lesson: "One operation per URL, out of the pool however it ends; touch shared state on one queue only.",
            defaultScenario: "offline", text: "Lessons/05-operation-pool.md",
            stillBroken:
                "still broken → step 6: a relaunch downloads every icon again, and offline it shows only placeholders",
            comparison: .init(before: 4)),
        LessonEntry(
            number: 6, target: "Lesson06SandboxCache", title: "sandbox (disk) cache",
            fixes: "a relaunch downloads every icon again; an offline relaunch shows only placeholders",
            lesson: "Keep downloads on disk under a name made from the whole URL: memory, then disk, then network.",
            defaultScenario: "offline-relaunch", text: "Lessons/06-sandbox-cache.md",
            stillBroken:
                "still broken → step 7: downloads under way at a memory warning still deliver, and downloads start while the user scrolls",
            comparison: .init(before: 5)),
        LessonEntry(
            number: 7, target: "Lesson07CustomOperation", title: "custom Operation",
            fixes: "cancelled downloads still delivering after a memory warning; downloads competing with a drag",
            lesson: "Cancelling only asks: an operation must check isCancelled. Suspend the queue during a drag.",
            defaultScenario: "memory-warning-then-back", text: "Lessons/07-custom-operation.md",
            stillBroken:
                "still broken → step 8: operations that must wait for each other (download, unzip, install) run in any order",
            ownScenarioStartsCold: true,
            // Step 7's own scenario ends with the user scrolling its rows back, which asks for them again after the
            // warning; `memory-warning-mid-download` stops at the warning's aftermath, where both fixes show.
            comparison: .init(before: 6, scenario: "memory-warning-mid-download")),
        LessonEntry(
            number: 8, target: "Lesson08Dependencies", title: "dependencies",
            fixes: "update steps running out of order; a dependency cycle that hangs without a word",
            lesson:
                "addDependency orders operations, even across queues; nothing checks for cycles, so check yourself.",
            defaultScenario: "software update (not a table scenario)", text: "Lessons/08-dependencies.md",
            stillBroken: "still broken → step 9: a suspended queue stops starting operations, not the one it is running"
        ),
        LessonEntry(
            number: 9, target: "Lesson09LotteryMachine", title: "the lottery machine",
            fixes: "a paused queue whose running operation keeps rolling; digits written off the main queue",
            lesson:
                "isSuspended stops a queue from starting operations, not the one running: it must check for itself.",
            defaultScenario: "start, pause, resume (not a table scenario)", text: "Lessons/09-lottery-machine.md",
            stillBroken:
                "still broken → step 10: back in step 7's image list, every download holds a worker thread while it "
                + "waits, and a second row on a shared icon can be left with its placeholder"),
        LessonEntry(
            number: 10, target: "Lesson10WebImage", title: "a WebImage of our own",
            fixes: "a thread blocked per download; a second row on a shared icon left empty (and, in a library, "
                + "a shared download cancelled by one reused cell)",
            lesson: "A loader is steps 4–7 in a library: two caches, one download per URL with a token per caller, "
                + "and an operation that waits on no thread.",
            defaultScenario: "shared-icon-reuse", text: "Lessons/10-web-image.md",
            stillBroken:
                "still broken, and no step takes it up yet: a memory warning cancels the visible rows' downloads too "
                + "(--scenario memory-warning-mid-download ends with 0 of 8 rows showing their icon)",
            ownScenarioStartsCold: true,
            comparison: .init(before: 7)),
        LessonEntry(
            number: 11, target: "Lesson11SwiftConcurrency", title: "Swift concurrency, Swift 6",
            fixes: "— the same app in async/await, in Swift 6 mode, where step 4's race no longer compiles",
            lesson: "An actor owns the cache and the downloads; a task suspends on the network and holds no thread.",
            defaultScenario: "shared-icon-reuse", text: "Lessons/11-swift-concurrency.md",
            stillBroken:
                "still broken, and no step takes it up yet: a memory warning cancels the visible rows' downloads too, "
                + "as in step 10, and a strong self in a stored Task (step 5's retain cycle) compiles without a word",
            ownScenarioStartsCold: true,
            comparison: .init(before: 10)),
    ]

    /// The steps that show the image list, in order: what the scoreboard compares.
    public static var imageListSteps: [LessonEntry] { all.filter(\.showsImageList) }

    public static func entry(_ number: Int) -> LessonEntry? {
        all.first { $0.number == number }
    }
}
