/// Where the learner's workbench lives: a package of its own in `Workbench/`,
/// beside the lessons', so that code half-way through an exercise, compiling
/// or not, never stops the lessons' build or tests.
public enum WorkbenchLayout {
    /// The workbench package's folder, relative to the lessons' package.
    public static let package = "Workbench"
    /// The executable the exercises' manifest makes, the one a check plays.
    public static let product = "Workbench"
    /// The learner's code, relative to the lessons' package.
    public static let code = "Workbench/Sources/Workbench/"
    /// How a learner runs their code from the lessons' folder.
    public static let run = "swift run --package-path Workbench Workbench"
    /// Read by the workbench's manifest: `6` builds the learner's code in the
    /// Swift 6 language mode, anything else in the tutorials' Swift 5 mode.
    public static let swiftModeVariable = "WORKBENCH_SWIFT_MODE"
}
