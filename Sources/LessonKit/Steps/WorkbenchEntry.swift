import Foundation

extension LessonEntry {
    /// The entry a workbench run uses: this step's scenarios and texts, under
    /// the workbench's own name (and so its own Caches folder). It shows the
    /// problem and never the fix: its closing line and its `--help` give the
    /// task where a step gives its lesson, and it names no later step's bug.
    public func workbench(defaultScenario: String? = nil) -> LessonEntry {
        var entry = LessonEntry(
            number: number, target: "Workbench", title: "your workbench, exercise \(number) (\(title))", fixes: fixes,
            lesson: "fix it in your code (swift run lessons task); once swift run lessons check \(number) passes,"
                + " swift run lessons solution \(number) shows the step's own fix",
            defaultScenario: defaultScenario ?? self.defaultScenario, text: text, chapter: chapter)
        entry.lessonHeading = "Your task"
        return entry
    }
}
