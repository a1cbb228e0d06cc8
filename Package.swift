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
]

let package = Package(
    name: "OperationLessons",
    products: [
        .executable(name: "lessons", targets: ["lessons"])
    ] + lessonTargets.map { .executable(name: $0, targets: [$0]) },
    targets: [
        .target(
            name: "SlowNetwork",
            resources: [.copy("Resources/apps.plist")]
        ),
        .target(name: "TableKit"),
        .target(name: "LessonKit", dependencies: ["SlowNetwork", "TableKit"]),
        .executableTarget(
            name: "lessons",
            dependencies: ["LessonKit", "SlowNetwork"] + lessonTargets.map { .target(name: $0) }
        ),
        .testTarget(
            name: "OperationLessonsTests",
            dependencies: ["SlowNetwork", "TableKit", "LessonKit"] + lessonTargets.map { .target(name: $0) }
        ),
    ] + lessonTargets.map {
        // The tutorials' code predates Swift 6 and is kept in their style (the
        // lesson texts show what Swift 6 would have said about it).
        .executableTarget(
            name: $0, dependencies: ["LessonKit", "SlowNetwork", "TableKit"],
            swiftSettings: [.swiftLanguageMode(.v5)])
    }
)
