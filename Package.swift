// swift-tools-version: 6.0
import Foundation
import PackageDescription

/// The course: every step, exercise and variant, in one manifest that the runtime reads too
/// (`LessonCatalog`, `ExerciseCatalog`). It is JSON because a manifest cannot import a module: Foundation reads
/// JSON here and in the harness alike, where a Swift file would need a parser of its own in this one.
/// SwiftPM caches this file's result by its own text: after an edit of the manifest that adds a target, a
/// library or a variant, `swift package purge-cache` (`CourseManifestTests` says so when the two disagree).
let course = CourseManifest.read()

/// One executable target per step. Each image step (1–7) is a self-contained copy of the step before it plus the
/// fix the step teaches, so `diff -r` between two of them is the lesson; steps 8 and 9 are stories of their own,
/// each told by a support library of its own (a step's `story`). A step's code imports only `LessonSupport` (and
/// `SlowNetwork`, `TableKit`); its `main.swift` hands it to the harness, or to its story.
let lessonTargets = course.steps.map(\.target)
/// The support libraries that tell a story of their own.
let stories = Set(course.steps.compactMap(\.story)).sorted()
/// The starting code of the exercises that do not start from a step's code, by the libraries it uses. The
/// learner's workbench (`swift run lessons exercise N` fills it) is the package in `Workbench/`, built only by
/// `lessons check`.
let exerciseStarts = course.exercises.filter { start in !lessonTargets.contains(start.start) }

/// What Package.swift reads of `Sources/LessonKit/Steps/course.json`.
struct CourseManifest {
    struct Step {
        let target: String
        let story: String?
        let swift6: Bool
        let libraries: [String]
        let hasVariants: Bool
    }
    struct ExerciseStart {
        let start: String
        let libraries: [String]
    }
    let steps: [Step]
    let exercises: [ExerciseStart]

    static let path = "Sources/LessonKit/Steps/course.json"

    static func read() -> CourseManifest {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(path)
        guard let data = FileManager.default.contents(atPath: url.path),
            let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let steps = json["steps"] as? [[String: Any]], let exercises = json["exercises"] as? [[String: Any]]
        else { fatalError("\(path) is missing or is not the course's JSON") }
        return CourseManifest(
            steps: steps.map {
                Step(
                    target: $0["target"] as! String, story: $0["story"] as? String,
                    swift6: $0["languageMode"] as? Int == 6, libraries: $0["libraries"] as? [String] ?? [],
                    hasVariants: !($0["variants"] as? [Any] ?? []).isEmpty)
            },
            exercises: exercises.map {
                ExerciseStart(start: $0["start"] as! String, libraries: $0["startLibraries"] as? [String] ?? [])
            })
    }
}

/// The race build (`OPERATION_LESSONS_RACE_BUILD=1`): Thread Sanitizer instruments the app's code only, each step's
/// and fixture's own target, not the harness it links (docs/architecture.md, "The race run").
let raceBuild = ProcessInfo.processInfo.environment["OPERATION_LESSONS_RACE_BUILD"] == "1"
let appSanitizer: [SwiftSetting] = raceBuild ? [.unsafeFlags(["-sanitize=thread"])] : []
let appSanitizerLink: [LinkerSetting] = raceBuild ? [.unsafeFlags(["-sanitize=thread"])] : []
/// What a fixture that plays a controller in the harness links. (Declared before `package`: a manifest's globals
/// are set in order, and one read before its line is not set yet.)
let fixtureApp: [Target.Dependency] = ["LessonKit", "LessonSupport", "SlowNetwork", "TableKit"]

let package = Package(
    name: "OperationLessons",
    products: [
        .executable(name: "lessons", targets: ["lessons"]),
        // What the learner's workbench (`Workbench/`, a package of its own) builds on.
        .library(
            name: "WorkbenchLibraries", targets: ["LessonChecks", "LessonSupport", "SlowNetwork", "TableKit", "WebImage"]),
    ] + lessonTargets.map { .executable(name: $0, targets: [$0]) },
    targets: [
        .target(
            name: "SlowNetwork", dependencies: ["HarnessSync", "HostOS", "UnseenSync"],
            resources: [.copy("Resources/apps.plist")]
        ),
        .target(name: "TableKit", dependencies: ["HarnessSync", "UnseenSync"]),
        // Drawing in a terminal: the table's rows and icons, text made safe and measured in columns, wrapping.
        .target(name: "TerminalKit", dependencies: ["HostOS", "TableKit"]),
        // The harness's own locks, hidden from Thread Sanitizer so that only the app's order its threads.
        .target(name: "UnseenSync"),
        // The harness's one lock type (`Locked`), hidden from Thread Sanitizer unless it says otherwise.
        .target(name: "HarnessSync", dependencies: ["UnseenSync"]),
        // What the harness asks of the host OS (threads, files, signals, the terminal, processes): the one module that
        // imports Glibc, a file per concern.
        .target(name: "HostOS"),
        // What a step's code needs and nothing more: its controller's protocol, its environment, its log.
        .target(name: "LessonSupport", dependencies: ["HarnessSync", "SlowNetwork", "TableKit"]),
        // Step 10's image-loading library, built from steps 4–7: Swift 6, race-free.
        .target(name: "WebImage", dependencies: ["SlowNetwork", "TableKit"]),
        // The harness: the story clock, the scenario runner, reports, timelines, the scoreboard.
        .target(
            name: "LessonKit",
            dependencies: [
                "DispatchSeam", "HarnessSync", "HostOS", "LessonSupport", "SlowNetwork", "TableKit", "TaskSeam",
                "TerminalKit", "UnseenSync",
            ],
            resources: [.copy("Steps/course.json")]),
        // The harness's seam into Dispatch: every program that links LessonKit counts its Dispatch work here.
        .target(
            name: "DispatchSeam", dependencies: ["UnseenSync"], linkerSettings: [.linkedLibrary("BlocksRuntime"), .linkedLibrary("dl")]),
        // The Swift runtime's hook for jobs bound to the global executor: how the story clock sees tasks.
        .target(name: "TaskSeam", dependencies: ["DispatchSeam"]),
        // The course on the web: DocC tutorials written from the lesson texts and the steps' files (`lessons site`);
        // a library of its own so that the tests check the catalog it writes without a browser.
        .target(name: "CourseSite", dependencies: ["LessonKit"]),
        .executableTarget(
            name: "lessons",
            dependencies: [
                "CourseSite", "HarnessSync", "HostOS", "LessonKit", "LessonSupport", "LessonChecks", "SlowNetwork",
                "TableKit", "TerminalKit",
            ]
                + lessonTargets.map { .target(name: $0) }
        ),
        .target(
            name: "LessonChecks",
            // The exercises of a story's step are checked in the step's world, which its story owns; a story's
            // workbench is also played by hand, as its step is.
            dependencies: [
                "HarnessSync", "HostOS", "LessonKit", "LessonSupport", "SlowNetwork", "TableKit", "TerminalKit",
            ] + stories.map { .target(name: $0) }),
    ] + stories.map {
        // A story: the step's code driven and watched from outside, told in the terminal.
        .target(
            name: $0,
            dependencies: [
                "HarnessSync", "HostOS", "LessonKit", "LessonSupport", "SlowNetwork", "TableKit", "TerminalKit",
            ])
    } + [
        .testTarget(
            name: "OperationLessonsTests",
            dependencies: [
                "SlowNetwork", "TableKit", "TerminalKit", "LessonSupport", "LessonKit", "LessonChecks", "WebImage", "CourseSite",
            ]
                + (stories + lessonTargets + exerciseStarts.map(\.start)).map { .target(name: $0) }
        ),
        // A controller ported from a published tutorial, played by the race check's tests
        // (ThreadSanitizerTests): its model record is written on download threads.
        // Kept as the tutorial wrote it, Swift 5 warnings and all; they are not the build's to show.
        fixture("RecordRace", fixtureApp, settings: [.unsafeFlags(["-suppress-warnings"])]),
        // Step 5's controller with the downloaded image force-unwrapped, played by CrashReplayTests (and, race-built,
        // by ThreadSanitizerTests): every failed download crashes it in its own file.
        fixture("UnwrappedImage", fixtureApp),
        // Step 3's controller `assert`ing on each download's result, played by EndOfStoryTests: the end of a story
        // must fail none of its downloads.
        fixture("AssertedDownload", fixtureApp),
        // A controller whose `deinit` crashes as its screen goes away at the story's end, played by EndOfStoryTests:
        // a crash the harness's end of the story sets off costs no verdict.
        fixture("TeardownCrash", ["LessonKit", "LessonSupport", "TableKit"]),
        // Step 6 with files named by `url.hashValue`, and with a static memory cache and no disk, played by
        // RelaunchTests: what a process keeps (its hash seed, its statics) must not survive a relaunch.
        fixture("PerProcessCache", fixtureApp),
        // An exercise 2 whose download blocks sleep for hours, played by CheckWatchTests: the story clock's
        // hang guard stops it, and the check says where the app was.
        fixture("SleepingBlock", fixtureApp),
        // The blogs' `AsyncOperation`, with no lock, played by exercise 10's checks (race-built, by
        // ThreadSanitizerTests): the queue's threads read its state while its download writes it.
        fixture("BlogOperation", ["LessonChecks", "SlowNetwork"]),
        // Exercise 9's workbench on its starting machine, played by hand on a pseudo-terminal (PlayTests).
        fixture("LotteryWorkbench", ["LessonChecks", "LessonSupport", "TableKit"], raceBuilt: false),
    ] + exerciseStarts.map {
        .target(
            name: $0.start,
            dependencies: ["LessonSupport", "SlowNetwork", "TableKit"] + $0.libraries.map { .target(name: $0) },
            swiftSettings: [.swiftLanguageMode(.v5)])
    } + course.steps.map(stepTarget)
)

/// A test fixture: a program of its own that the tests play, its code in `Tests/Fixtures/<name>`. Written in the
/// tutorials' Swift 5 style, and instrumented by the race build as the steps are unless `raceBuilt` is false.
func fixture(
    _ name: String, _ dependencies: [Target.Dependency], settings: [SwiftSetting] = [], raceBuilt: Bool = true
) -> Target {
    .executableTarget(
        name: name + "Fixture", dependencies: dependencies, path: "Tests/Fixtures/" + name,
        swiftSettings: [.swiftLanguageMode(.v5)] + settings + (raceBuilt ? appSanitizer : []),
        linkerSettings: raceBuilt ? appSanitizerLink : [])
}

/// A step's executable target. The tutorials' code predates Swift 6 and is kept in their style (the lesson texts
/// show what Swift 6 would have said about it). One compile job per file: a batch job prints a file's warnings once
/// per file in the batch, which made step 2's one intended warning print four times. A step's variants (its
/// mistakes, played with a flag) sit in `Sources/Variants/<step>`, outside the step's folder, so that `diff -r` of
/// two steps' folders is the lesson and nothing else.
func stepTarget(_ step: CourseManifest.Step) -> Target {
    let variants = step.hasVariants ? ["Variants/\(step.target)"] : []
    let dependencies: [Target.Dependency] =
        [.target(name: step.story ?? "LessonKit"), "LessonSupport", "SlowNetwork", "TableKit"]
        + step.libraries.map { .target(name: $0) }
    let settings: [SwiftSetting] = [
        .swiftLanguageMode(step.swift6 ? .v6 : .v5), .unsafeFlags(["-disable-batch-mode"]),
    ]
    return .executableTarget(
        name: step.target, dependencies: dependencies, path: "Sources", exclude: sourcesOfOthers(than: step.target),
        sources: [step.target] + variants, swiftSettings: settings + appSanitizer, linkerSettings: appSanitizerLink)
}

/// What a step's target, which sits at `Sources` to reach its variants, leaves to the other targets: every other
/// folder there, and the other steps' variants (listed, or SwiftPM warns of each of their files as unhandled).
func sourcesOfOthers(than step: String) -> [String] {
    let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Sources")
    let folders = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
    let variants = (try? FileManager.default.contentsOfDirectory(atPath: sources.appendingPathComponent("Variants").path)) ?? []
    return folders.filter { $0 != step && $0 != "Variants" } + variants.filter { $0 != step }.map { "Variants/\($0)" }
}
