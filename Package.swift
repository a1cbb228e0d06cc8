// swift-tools-version: 6.0
import PackageDescription

/// One executable target per step. Each is a self-contained copy of the step
/// before it plus the fix the step teaches, so `diff -r` between two steps is
/// the lesson. Add a new step here and in `LessonCatalog.swift`.
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
]

/// The exercises: the learner's workbench (`swift run lessons exercise N` fills it), the checks it is held to,
/// and the starting code of the exercises whose step is not an image list.
/// Steps built on the WebImage library rather than on their own download code.
let usesWebImage: Set<String> = ["Lesson10WebImage"]

let exerciseStartTargets = ["Exercise08Start", "Exercise09Start", "Exercise10Start"]

let package = Package(
    name: "OperationLessons",
    products: [
        .executable(name: "lessons", targets: ["lessons"]),
        .executable(name: "Workbench", targets: ["Workbench"]),
    ] + lessonTargets.map { .executable(name: $0, targets: [$0]) },
    targets: [
        .target(
            name: "SlowNetwork",
            resources: [.copy("Resources/apps.plist")]
        ),
        .target(name: "TableKit"),
        // Step 10's image-loading library, built from steps 4–7: Swift 6, race-free.
        .target(name: "WebImage", dependencies: ["SlowNetwork", "TableKit"]),
        .target(name: "LessonKit", dependencies: ["SlowNetwork", "TableKit"]),
        .executableTarget(
            name: "lessons",
            dependencies: ["LessonKit", "LessonChecks", "SlowNetwork"] + lessonTargets.map { .target(name: $0) }
        ),
        .target(name: "LessonChecks", dependencies: ["LessonKit", "SlowNetwork", "TableKit"]),
        // The learner's code, in the tutorials' Swift 5 style like the steps it is copied from.
        .executableTarget(
            name: "Workbench", dependencies: ["LessonChecks", "LessonKit", "SlowNetwork", "TableKit"],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(
            name: "OperationLessonsTests",
            dependencies: ["SlowNetwork", "TableKit", "LessonKit", "LessonChecks", "WebImage"]
                + (lessonTargets + exerciseStartTargets).map { .target(name: $0) }
        ),
    ] + exerciseStartTargets.map {
        .target(
            name: $0, dependencies: ["LessonKit", "SlowNetwork", "TableKit"], swiftSettings: [.swiftLanguageMode(.v5)])
    } + lessonTargets.map {
        // The tutorials' code predates Swift 6 and is kept in their style (the
        // lesson texts show what Swift 6 would have said about it).
        .executableTarget(
            name: $0,
            dependencies: ["LessonKit", "SlowNetwork", "TableKit"] + (usesWebImage.contains($0) ? ["WebImage"] : []),
            swiftSettings: [.swiftLanguageMode(.v5)])
    }
)
