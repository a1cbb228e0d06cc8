import Foundation

/// The course as data: `course.json`, beside this file, lists every step, exercise and variant. The harness reads
/// it here and knows no step of its own; Package.swift reads the same file for the targets it builds.
public struct CourseManifest: Sendable, Decodable {
    public let steps: [LessonEntry]
    public let exercises: [ExerciseEntry]

    /// The manifest the package was built with.
    public static let shared: CourseManifest = {
        guard let url = Bundle.module.url(forResource: "course", withExtension: "json") else {
            preconditionFailure("course.json is missing from the LessonKit bundle")
        }
        do {
            return try read(Data(contentsOf: url))
        } catch {
            preconditionFailure("Sources/LessonKit/Steps/course.json cannot be read: \(error)")
        }
    }()

    public static func read(_ data: Data) throws -> CourseManifest {
        try JSONDecoder().decode(CourseManifest.self, from: data)
    }
}

/// One exercise as the manifest states it; `ExerciseCatalog` makes it the checker's `Exercise`.
public struct ExerciseEntry: Sendable, Decodable {
    public let number: Int
    /// What the workbench holds: "an image list", "a software update", "a lottery machine",
    /// "an asynchronous operation".
    public let kind: String
    /// The target whose code the exercise starts from: the step before's, or a start of its own.
    public let start: String
    /// The folder in `Sources/` whose code solves it.
    public let solution: String
    /// The libraries a start of its own is built on.
    public let startLibraries: [String]?
    /// The checks' bugs it names, besides the bug table's (an image list checks those its step and the steps before
    /// it fix): the keys of `ExerciseCatalog.namedBugs`.
    public let bugs: [String]?
    public let watchFlags: String?
    /// What the watch shows, in a line; an image list's is its first scenario's summary.
    public let watchSays: String?
    public let problemSection: String?
    /// The lesson text that states the problem, when it is not the step's own.
    public let problemText: String?
    public let checksRaces: Bool?
    /// Why it is stated so: the manifest's note, read by no code.
    public let why: String?
}
