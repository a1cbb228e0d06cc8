// swift-tools-version: 6.0
import PackageDescription

/// The learner's workbench: a package of its own, so that code half-way
/// through an exercise, compiling or not, never stops the lessons' own build
/// and tests. `swift run lessons check` builds it; so does
/// `swift run --package-path Workbench Workbench`. It uses the lessons'
/// libraries from the package around it.
let package = Package(
    name: "Workbench",
    dependencies: [.package(name: "OperationLessons", path: "..")],
    targets: [
        // The learner's code, in the tutorials' Swift 5 style like the steps it is copied from.
        .executableTarget(
            name: "Workbench",
            dependencies: [.product(name: "WorkbenchLibraries", package: "OperationLessons")],
            swiftSettings: [.swiftLanguageMode(.v5)])
    ]
)
