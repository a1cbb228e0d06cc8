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
    public let defaultScenario: String
    /// The lesson text in `Lessons/`.
    public let text: String

    public var id: String { number < 10 ? "0\(number)" : "\(number)" }
}

/// Every step there is. A new step adds a line here and its target in Package.swift.
public enum LessonCatalog {
    public static let all: [LessonEntry] = [
        LessonEntry(
            number: 1, target: "Lesson01SyncLoad", title: "synchronous load",
            fixes: "— shows the problem: icons fetched on the main queue freeze the app",
            lesson: "Anything slow on the main queue freezes the screen: the first screen waits rows × latency.",
            defaultScenario: "standard", text: "Lessons/01-synchronous-load.md"),
    ]

    public static func entry(_ number: Int) -> LessonEntry? {
        all.first { $0.number == number }
    }
}
