/// What the script's events did to the app, noted as they happen: the
/// timeline's events, and the marks the report counts from (the first
/// screen's icons, when the user scrolled, the request count at a relaunch or
/// a memory warning, what the app kept after one).
struct ScriptEvents: Codable {
    private(set) var timeline: [Timeline.Event] = []
    /// The icon URLs of the rows on the first screen, for the physical limit.
    private(set) var firstScreenIcons: [String] = []
    var scrolls = ScrollSpans()
    private(set) var memoryWarnings = 0
    private(set) var requestsAtRelaunch: Int?
    /// Each launch of the app, the first and one per relaunch, as it began.
    private(set) var launches: [Launch] = []
    private(set) var requestsAtMemoryWarning: Int?
    /// Image bytes no cell held once the app had done all it does about the last warning.
    var liveImageBytesAfterWarning: Int?
    /// A warning was delivered and its memory is still to be measured, once the app is idle.
    var measuresMemoryOnceIdle = false

    mutating func note(_ label: String, atMs ms: Double) {
        timeline.append(Timeline.Event(ms: ms, label: label))
    }

    mutating func launched(firstScreenIcons icons: [String]) { firstScreenIcons = icons }

    mutating func memoryWarning(requestsSoFar: Int) {
        memoryWarnings += 1
        requestsAtMemoryWarning = requestsSoFar
        measuresMemoryOnceIdle = true
    }

    mutating func relaunch(requestsSoFar: Int) { requestsAtRelaunch = requestsSoFar }

    /// The app is about to launch: when, the requests made before, and the files in its caches folder.
    mutating func launching(atMs ms: Double, requestsSoFar: Int, diskCacheFiles: Int) {
        launches.append(Launch(ms: ms, requestsBefore: requestsSoFar, diskCacheFiles: diskCacheFiles))
    }

    struct Launch: Codable {
        let ms: Double
        let requestsBefore: Int
        let diskCacheFiles: Int
    }
}
