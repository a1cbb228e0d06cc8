// swift-tools-version: 6.0
import Foundation
import PackageDescription

/// One executable target per step. Each image step (1–7) is a self-contained
/// copy of the step before it plus the fix the step teaches, so `diff -r`
/// between two of them is the lesson; steps 8 and 9 are stories of their own
/// (a software update, a lottery machine), built on the same queues, each told
/// by a support library of its own (`stepStories`): the tour and the lottery
/// run drive the step's code and watch it from outside. A step's code imports
/// only `LessonSupport` (and `SlowNetwork`, `TableKit`); its `main.swift` hands
/// it to the harness, or to its story. Add a new step here and in
/// `LessonCatalog.swift`.
let lessonTargets = [
    "Lesson01SyncLoad",
    "Lesson02AsyncPlaceholder",
    "Lesson03ModelCache",
    "Lesson04CacheDictionary",
    "Lesson05OperationPool",
    "Lesson06SandboxCache",
    "Lesson07CustomOperation",
    "Lesson08Dependencies",
    "Lesson09LotteryMachine",
    "Lesson10WebImage",
    "Lesson11SwiftConcurrency",
]

/// The steps that offer variants: controllers with one of the step's mistakes (`--naive-pool`…), kept in
/// `Sources/Variants/<step>` and compiled into the step.
let stepsWithVariants: Set<String> = [
    "Lesson05OperationPool", "Lesson06SandboxCache", "Lesson07CustomOperation", "Lesson09LotteryMachine",
    "Lesson10WebImage",
]

/// The support libraries that tell steps 8 and 9, by the step that imports them.
let stepStories = ["Lesson08Dependencies": "DependencyTour", "Lesson09LotteryMachine": "LotteryMachineStory"]

/// Steps built on the WebImage library rather than on their own download code (step 11 keeps its disk cache).
let usesWebImage: Set<String> = ["Lesson10WebImage", "Lesson11SwiftConcurrency", "Exercise11Start"]

/// Steps written for Swift 6: compiled in its language mode, with complete checking.
let swift6Steps: Set<String> = ["Lesson11SwiftConcurrency"]

/// The starting code of the exercises that do not start from the step before's code (8–10: the
/// step is not an image list; 11: step 10's app already compiles in Swift 6 mode). The learner's workbench
/// (`swift run lessons exercise N` fills it) is the package in `Workbench/`, built only by `lessons check`.
let exerciseStartTargets = ["Exercise08Start", "Exercise09Start", "Exercise10Start", "Exercise11Start"]

/// The race build (`OPERATION_LESSONS_RACE_BUILD=1`): Thread Sanitizer instruments the app's code only, each step's
/// and fixture's own target, not the harness it links (docs/architecture.md, "The race run").
let raceBuild = ProcessInfo.processInfo.environment["OPERATION_LESSONS_RACE_BUILD"] == "1"
let appSanitizer: [SwiftSetting] = raceBuild ? [.unsafeFlags(["-sanitize=thread"])] : []
let appSanitizerLink: [LinkerSetting] = raceBuild ? [.unsafeFlags(["-sanitize=thread"])] : []

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
            ]),
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
            // Exercises 8 and 9 are checked in their steps' worlds, which their stories own; exercise 9's
            // workbench also plays the learner's machine by hand, as step 9 is played.
            dependencies: [
                "HarnessSync", "HostOS", "LessonKit", "LessonSupport", "SlowNetwork", "TableKit", "TerminalKit",
            ] + stepStories.values.sorted().map { .target(name: $0) }),
    ] + stepStories.values.sorted().map {
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
                + (stepStories.values.sorted() + lessonTargets + exerciseStartTargets).map { .target(name: $0) }
        ),
        // A controller ported from a published tutorial, played by the race check's tests
        // (ThreadSanitizerTests): its model record is written on download threads.
        .executableTarget(
            name: "RecordRaceFixture", dependencies: ["LessonKit", "LessonSupport", "SlowNetwork", "TableKit"],
            path: "Tests/Fixtures/RecordRace",
            // Kept as the tutorial wrote it, Swift 5 warnings and all; they are not the build's to show.
            swiftSettings: [.swiftLanguageMode(.v5), .unsafeFlags(["-suppress-warnings"])] + appSanitizer,
            linkerSettings: appSanitizerLink),
        // Step 5's controller with the downloaded image force-unwrapped, played by CrashReplayTests (and, race-built,
        // by ThreadSanitizerTests): every failed download crashes it in its own file.
        .executableTarget(
            name: "UnwrappedImageFixture", dependencies: ["LessonKit", "LessonSupport", "SlowNetwork", "TableKit"],
            path: "Tests/Fixtures/UnwrappedImage", swiftSettings: [.swiftLanguageMode(.v5)] + appSanitizer,
            linkerSettings: appSanitizerLink),
        // Step 3's controller `assert`ing on each download's result, played by EndOfStoryTests: the end of a story
        // must fail none of its downloads.
        .executableTarget(
            name: "AssertedDownloadFixture", dependencies: ["LessonKit", "LessonSupport", "SlowNetwork", "TableKit"],
            path: "Tests/Fixtures/AssertedDownload", swiftSettings: [.swiftLanguageMode(.v5)] + appSanitizer,
            linkerSettings: appSanitizerLink),
        // Step 6 with files named by `url.hashValue`, and with a static memory cache and no disk, played by
        // RelaunchTests: what a process keeps (its hash seed, its statics) must not survive a relaunch.
        .executableTarget(
            name: "PerProcessCacheFixture", dependencies: ["LessonKit", "LessonSupport", "SlowNetwork", "TableKit"],
            path: "Tests/Fixtures/PerProcessCache", swiftSettings: [.swiftLanguageMode(.v5)] + appSanitizer,
            linkerSettings: appSanitizerLink),
        // An exercise 2 whose download blocks sleep for hours, played by CheckWatchTests: the story clock's
        // hang guard stops it, and the check says where the app was.
        .executableTarget(
            name: "SleepingBlockFixture", dependencies: ["LessonKit", "LessonSupport", "SlowNetwork", "TableKit"],
            path: "Tests/Fixtures/SleepingBlock", swiftSettings: [.swiftLanguageMode(.v5)] + appSanitizer,
            linkerSettings: appSanitizerLink),
        // The blogs' `AsyncOperation`, with no lock, played by exercise 10's checks (race-built, by
        // ThreadSanitizerTests): the queue's threads read its state while its download writes it.
        .executableTarget(
            name: "BlogOperationFixture", dependencies: ["LessonChecks", "SlowNetwork"],
            path: "Tests/Fixtures/BlogOperation", swiftSettings: [.swiftLanguageMode(.v5)] + appSanitizer,
            linkerSettings: appSanitizerLink),
        // Exercise 9's workbench on its starting machine, played by hand on a pseudo-terminal (PlayTests).
        .executableTarget(
            name: "LotteryWorkbenchFixture", dependencies: ["LessonChecks", "LessonSupport", "TableKit"],
            path: "Tests/Fixtures/LotteryWorkbench", swiftSettings: [.swiftLanguageMode(.v5)]),
    ] + exerciseStartTargets.map {
        .target(
            name: $0,
            dependencies: ["LessonSupport", "SlowNetwork", "TableKit"] + (usesWebImage.contains($0) ? ["WebImage"] : []),
            swiftSettings: [.swiftLanguageMode(.v5)])
    } + lessonTargets.map(stepTarget)
)

/// A step's executable target. The tutorials' code predates Swift 6 and is kept in their style (the lesson texts
/// show what Swift 6 would have said about it). One compile job per file: a batch job prints a file's warnings once
/// per file in the batch, which made step 2's one intended warning print four times. A step's variants (its
/// mistakes, played with a flag) sit in `Sources/Variants/<step>`, outside the step's folder, so that `diff -r` of
/// two steps' folders is the lesson and nothing else.
func stepTarget(_ name: String) -> Target {
    let variants = stepsWithVariants.contains(name) ? ["Variants/\(name)"] : []
    var dependencies: [Target.Dependency] = [
        .target(name: stepStories[name] ?? "LessonKit"), "LessonSupport", "SlowNetwork", "TableKit",
    ]
    if usesWebImage.contains(name) { dependencies.append("WebImage") }
    let settings: [SwiftSetting] = [
        .swiftLanguageMode(swift6Steps.contains(name) ? .v6 : .v5), .unsafeFlags(["-disable-batch-mode"]),
    ]
    return .executableTarget(
        name: name, dependencies: dependencies, path: "Sources", exclude: sourcesOfOthers(than: name),
        sources: [name] + variants, swiftSettings: settings + appSanitizer, linkerSettings: appSanitizerLink)
}

/// What a step's target, which sits at `Sources` to reach its variants, leaves to the other targets: every other
/// folder there, and the other steps' variants (listed, or SwiftPM warns of each of their files as unhandled).
func sourcesOfOthers(than step: String) -> [String] {
    let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Sources")
    let folders = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
    let variants = (try? FileManager.default.contentsOfDirectory(atPath: sources.appendingPathComponent("Variants").path)) ?? []
    return folders.filter { $0 != step && $0 != "Variants" } + variants.filter { $0 != step }.map { "Variants/\($0)" }
}
