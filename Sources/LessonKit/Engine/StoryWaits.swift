import Foundation
import SlowNetwork

/// What a story waits for on a `SleepClock`: a time, a trigger, or the
/// story's end (`wait(atMost:until:)`, `waitUntilIdle`), and what must
/// happen first (operations, a condition) so that the time does not run past
/// a wait whose trigger is on its way. Kept apart from the threads asleep in
/// the `StoryTimeline`: a wait holds no thread, and ends after them.
struct StoryWaits {
    /// One wait of the story, resumed once: true by its trigger (or the
    /// story's end), false when its time is up.
    struct Wait {
        /// Nil: only its trigger ends it (or the story's end, `endsWhenIdle`).
        let due: StoryTime?
        /// It ends (true) when the story has nothing left to play (`waitUntilIdle`).
        let endsWhenIdle: Bool
        let resume: @Sendable (Bool) -> Void
    }

    /// The last id handed out: waits end in the order of their ids.
    private var lastID = 0
    private(set) var waits: [Int: Wait] = [:]
    /// Operations a story waits for (`waitUntilFinished`), by wait.
    private(set) var operations: [Int: [Operation]] = [:]
    /// What each wait for a condition waits for: once it holds, the wait's
    /// trigger is on its way, and the time must not run past it.
    private(set) var conditions: [Int: @Sendable () -> Bool] = [:]

    var isEmpty: Bool { waits.isEmpty }

    var nextDue: StoryTime? { waits.values.compactMap(\.due).min() }

    mutating func add(_ wait: Wait) -> Int {
        lastID += 1
        waits[lastID] = wait
        return lastID
    }

    /// Ends a wait by its trigger: nil if it had ended already.
    mutating func end(_ id: Int) -> Wait? { waits.removeValue(forKey: id) }

    /// Notes what a wait's trigger waits for (`operations` finished, `holds`
    /// true), until `forget`.
    mutating func note(operations waited: [Operation] = [], holds: @escaping @Sendable () -> Bool) -> Int {
        lastID += 1
        if !waited.isEmpty { operations[lastID] = waited }
        conditions[lastID] = holds
        return lastID
    }

    mutating func forget(_ id: Int) {
        operations[id] = nil
        conditions[id] = nil
    }

    /// Takes out the waits whose time is up by `time`, in the order they began.
    mutating func takeDue(by time: StoryTime) -> [Wait] {
        take { $0.due.map { $0 <= time } ?? false }
    }

    /// Takes out the waits for the story's end, in the order they began.
    mutating func takeEndingWhenIdle() -> [Wait] { take(\.endsWhenIdle) }

    /// Takes out every wait (the clock is shut down).
    mutating func takeAll() -> [Wait] { take { _ in true } }

    private mutating func take(_ which: (Wait) -> Bool) -> [Wait] {
        let taken = waits.filter { which($0.value) }
        for id in taken.keys { waits[id] = nil }
        return taken.sorted { $0.key < $1.key }.map(\.value)
    }
}
