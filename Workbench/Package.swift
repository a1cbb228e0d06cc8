// swift-tools-version: 6.0
import Foundation
import PackageDescription

/// The learner's workbench: a package of its own, so that code half-way
/// through an exercise, compiling or not, never stops the lessons' own build
/// and tests. `swift run lessons check` builds it; so does
/// `swift run --package-path Workbench Workbench`. It uses the lessons'
/// libraries from the package around it.
///
/// The learner's code is compiled in the tutorials' Swift 5 language mode, like
/// the steps it is copied from, so that it runs whatever Swift 6 would say of it.
/// `WORKBENCH_SWIFT_MODE=6` in the environment compiles it in the Swift 6 mode
/// (complete concurrency checking): exercise 11's check builds it so and reads
/// the compiler's verdict (`Swift6Check`).
let languageMode: SwiftLanguageMode = ProcessInfo.processInfo.environment["WORKBENCH_SWIFT_MODE"] == "6" ? .v6 : .v5

/// `WORKBENCH_RACE_BUILD=1` is the race check's build (`lessons check` from exercise 5 on): Thread Sanitizer
/// instruments the learner's code and nothing of the lessons' libraries, so that only the app's own accesses are
/// checked and only its own synchronisation orders them (docs/architecture.md, "The race run").
let raceBuild = ProcessInfo.processInfo.environment["WORKBENCH_RACE_BUILD"] == "1"
let sanitizer: [SwiftSetting] = raceBuild ? [.unsafeFlags(["-sanitize=thread"])] : []
let sanitizerLink: [LinkerSetting] = raceBuild ? [.unsafeFlags(["-sanitize=thread"])] : []

let package = Package(
    name: "Workbench",
    dependencies: [.package(name: "OperationLessons", path: "..")],
    targets: [
        .executableTarget(
            name: "Workbench",
            dependencies: [.product(name: "WorkbenchLibraries", package: "OperationLessons")],
            swiftSettings: [.swiftLanguageMode(languageMode)] + sanitizer, linkerSettings: sanitizerLink)
    ]
)
