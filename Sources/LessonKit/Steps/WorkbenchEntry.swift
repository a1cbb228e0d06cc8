import Foundation

extension LessonEntry {
    /// The entry a workbench run uses: this step's scenarios and texts, under
    /// the workbench's own name (and so its own Caches folder).
    public func workbench(defaultScenario: String? = nil) -> LessonEntry {
        LessonEntry(
            number: number, target: "Workbench", title: "your workbench, exercise \(number) (\(title))", fixes: fixes,
            lesson: lesson, defaultScenario: defaultScenario ?? self.defaultScenario, text: text)
    }
}
