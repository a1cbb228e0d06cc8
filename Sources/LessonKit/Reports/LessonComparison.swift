/// A step and the step before it, played on one scenario: what `lessons
/// compare N` shows. A fix is seen best beside the bug it fixes.
public struct LessonComparison: Sendable {
    public let before: LessonEntry
    public let after: LessonEntry
    /// The scenario both play unless told otherwise.
    public let scenario: String
    /// A scenario played after it, for a fix of the step that `scenario`
    /// cannot show.
    public let thenScenario: String?

    /// The steps that have one (`LessonEntry.comparison`), in order.
    public static var steps: [Int] { LessonCatalog.all.filter { $0.comparison != nil }.map(\.number) }

    /// Step `number` and the step before it, or nil when it has none.
    public static func of(_ number: Int) -> LessonComparison? {
        guard let after = LessonCatalog.entry(number), let comparison = after.comparison,
            let before = LessonCatalog.entry(comparison.before)
        else { return nil }
        return LessonComparison(
            before: before, after: after, scenario: comparison.scenario ?? after.defaultScenario,
            thenScenario: comparison.thenScenario)
    }

    /// "10: 7": each step compared with another than the one just before it.
    public static var skips: [String] { skipped.map { "\($0.after): \($0.before)" } }

    private static var skipped: [(after: Int, before: Int)] {
        LessonCatalog.all.compactMap { step in
            step.comparison.flatMap { $0.before == step.number - 1 ? nil : (step.number, $0.before) }
        }
    }

    /// "for step 2, standard": each comparison that plays another scenario than its step's own, for `--help`.
    public static var otherScenarios: [String] {
        LessonCatalog.all.compactMap { step in
            guard let comparison = step.comparison else { return nil }
            if let then = comparison.thenScenario {
                return "for step \(step.number), \(comparison.scenario ?? "its own"), then \(then), which shows its other fix"
            }
            return comparison.scenario.map { "for step \(step.number), \($0)" }
        }
    }

    /// The sentence for a number that has no comparison.
    public static func noComparison(_ number: String) -> String {
        let listed = steps.dropLast().map(String.init).joined(separator: ", ") + (steps.last.map { " and \($0)" } ?? "")
        let skips = skipped.map { "\($0.after) against \($0.before)" }
        return "step \(number) has no comparison: compare takes \(listed) (each against the step before it"
            + (skips.isEmpty ? ")" : "; " + skips.joined(separator: ", ") + ", the image step before it)")
    }
}
