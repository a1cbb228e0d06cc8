import Foundation

/// One step of the course, as `swift run lessons` lists it.
// More than 12 stored properties: a row of the course manifest (course.json), a property per column it states.
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
    /// The chapter of the course that holds it (the site's table of contents).
    public let chapter: String
    /// The support library that tells the step's story, for a step that is not an image list; nil: the harness's.
    public var story: String? = nil
    /// The Swift language mode the step is compiled in: the tutorials' 5, or 6.
    public var languageMode = 5
    /// The course's libraries the step is built on (`WebImage`).
    public var libraries: [String] = []
    /// The library this step writes, for its own documentation page.
    public var builds: Library? = nil
    /// Whether this step fixes the data race of shared state written from download threads (`RaceCheck`).
    public var fixesTheDataRace = false
    /// Its mistakes, played with a flag (`--naive-pool`): their controllers sit in `Sources/Variants/<target>`.
    public var variants: [Variant] = []

    /// A step's mistake, played by a controller of its variants folder.
    public struct Variant: Sendable, Decodable, Equatable {
        /// The flag, without its dashes: `naive-pool`.
        public let flag: String
        /// The controller's type name in the step's target.
        public let controller: String

        public init(flag: String, controller: String) {
            self.flag = flag
            self.controller = controller
        }
    }

    /// A library of the course, as the step that writes it describes it.
    public struct Library: Sendable, Decodable {
        public let library: String
        public let about: String
    }

    /// A step beside the step whose bug it fixes.
    public struct Comparison: Sendable, Decodable {
        /// The image step before this one.
        public let before: Int
        /// The scenario both play; nil: this step's own.
        public var scenario: String? = nil
        /// A scenario played after it, for a fix that `scenario` cannot show.
        public var thenScenario: String? = nil
        /// Why the pair plays another scenario than the step's own: the manifest's note, read by no code.
        public var why: String? = nil
    }

    /// Its number in two digits, as its lesson text's name starts: "05".
    public var id: String { String(format: "%02d", number) }

    /// Whether the step is the image list: its default scenario is
    /// one of the table scripts. The scoreboard, the bug matrix and the timeline
    /// pictures run every such step on the same script; steps that are not a
    /// table of icons (dependencies, the lottery machine) have scripts of their own.
    public var showsImageList: Bool { Scenario.named(defaultScenario) != nil }
}

/// A step as the manifest states it; left out, a field takes the default above.
extension LessonEntry: Decodable {
    private enum CodingKeys: String, CodingKey {
        case number, target, title, fixes, lesson, defaultScenario, text, stillBroken, ownScenarioStartsCold
        case comparison, chapter, story, languageMode, libraries, builds, fixesTheDataRace, variants
    }

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        number = try values.decode(Int.self, forKey: .number)
        target = try values.decode(String.self, forKey: .target)
        title = try values.decode(String.self, forKey: .title)
        fixes = try values.decode(String.self, forKey: .fixes)
        lesson = try values.decode(String.self, forKey: .lesson)
        defaultScenario = try values.decode(String.self, forKey: .defaultScenario)
        text = try values.decode(String.self, forKey: .text)
        chapter = try values.decode(String.self, forKey: .chapter)
        stillBroken = try values.decodeIfPresent(String.self, forKey: .stillBroken)
        ownScenarioStartsCold = try values.decodeIfPresent(Bool.self, forKey: .ownScenarioStartsCold) ?? false
        comparison = try values.decodeIfPresent(Comparison.self, forKey: .comparison)
        story = try values.decodeIfPresent(String.self, forKey: .story)
        languageMode = try values.decodeIfPresent(Int.self, forKey: .languageMode) ?? 5
        libraries = try values.decodeIfPresent([String].self, forKey: .libraries) ?? []
        builds = try values.decodeIfPresent(Library.self, forKey: .builds)
        fixesTheDataRace = try values.decodeIfPresent(Bool.self, forKey: .fixesTheDataRace) ?? false
        variants = try values.decodeIfPresent([Variant].self, forKey: .variants) ?? []
    }
}

/// Every step there is, as the course manifest (`course.json`, beside this file) lists them: a new step is one
/// entry there. Package.swift reads the same file for the targets it builds.
public enum LessonCatalog {
    public static let all: [LessonEntry] = CourseManifest.shared.steps

    /// The steps that show the image list, in order: what the scoreboard compares.
    public static var imageListSteps: [LessonEntry] { all.filter(\.showsImageList) }

    /// The step that fixes the data race of shared state written from download threads.
    public static var dataRaceFixedIn: Int { all.first(where: \.fixesTheDataRace)?.number ?? Int.max }

    /// "2-7, 10 and 11": step numbers as a sentence names them, a run of three or more as a range.
    public static func phrase(_ numbers: [Int]) -> String {
        var runs: [[Int]] = []
        for number in numbers.sorted() {
            if let last = runs.last?.last, last + 1 == number { runs[runs.count - 1].append(number) } else { runs.append([number]) }
        }
        let parts = runs.flatMap { $0.count >= 3 ? ["\($0[0])-\($0[$0.count - 1])"] : $0.map(String.init) }
        return parts.count < 2 ? parts.joined() : parts.dropLast().joined(separator: ", ") + " and " + parts[parts.count - 1]
    }

    /// The step and the variant flag that play a controller, by its type's full name
    /// (`String(reflecting:)`, "Lesson06SandboxCache.LastComponentNamesViewController"): the step's own controller
    /// needs no flag. Nil for a type no step's target defines.
    public static func launch(of controller: String) -> (entry: LessonEntry, flag: String?)? {
        let parts = controller.split(separator: ".", maxSplits: 1).map(String.init)
        guard parts.count == 2, let entry = all.first(where: { $0.target == parts[0] }) else { return nil }
        return (entry, entry.variants.first { $0.controller == parts[1] }?.flag)
    }

    public static func entry(_ number: Int) -> LessonEntry? {
        all.first { $0.number == number }
    }
}
