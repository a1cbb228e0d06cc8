/// A step and the step before it, played on one scenario: what `lessons
/// compare N` shows. A fix is seen best beside the bug it fixes.
public struct LessonComparison: Sendable {
    public let before: LessonEntry
    public let after: LessonEntry
    /// The scenario both play unless told otherwise.
    public let scenario: String
    /// A scenario played after it, for a fix of the step that `scenario`
    /// cannot show: step 3's keeps icons (on `standard` step 2 downloads 48
    /// times for 28 icons, step 3 28), but on `fast-scroll-slow-rows`, which
    /// shows its other fix, no row comes back.
    public let thenScenario: String?

    /// The steps that have one: each image step from 2 to 7 against the step
    /// before it, step 10 (the library) against step 7, the image step
    /// before it, and step 11 (Swift concurrency) against step 10. Steps 8 and
    /// 9 tell stories of their own, on no table.
    public static var steps: [Int] { [2, 3, 4, 5, 6, 7, 10, 11] }

    /// Step `number` and the step before it, or nil when it has none.
    ///
    /// The scenario is the later step's own, but for steps 2 and 7. Step 2's
    /// own (`fast-scroll-slow-rows`) makes step 1 play 216 s of story, a
    /// download of 5–10 s at a time on the main queue, long after step 2 has
    /// finished; `standard` shows the same freeze at once (4 s before the
    /// first screen, 1,200 frames dropped) and ends in 21 s. Step 7's own ends
    /// with the user scrolling its rows back, which asks for them again after
    /// the warning; `memory-warning-mid-download` stops at the warning's
    /// aftermath, where both of step 7's fixes are the only difference.
    public static func of(_ number: Int) -> LessonComparison? {
        guard steps.contains(number), let after = LessonCatalog.entry(number),
            let before = LessonCatalog.entry(number == 10 ? 7 : number - 1)
        else { return nil }
        return LessonComparison(
            before: before, after: after,
            scenario: [2: "standard", 7: "memory-warning-mid-download"][number] ?? after.defaultScenario,
            thenScenario: number == 3 ? "standard" : nil)
    }

    /// The sentence for a number that has no comparison.
    public static func noComparison(_ number: String) -> String {
        let listed = steps.dropLast().map(String.init).joined(separator: ", ") + " and \(steps.last ?? 10)"
        return "step \(number) has no comparison: compare takes \(listed) (each against the step before it; "
            + "10 against 7, the image step before it)"
    }
}
