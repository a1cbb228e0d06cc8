import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import Testing

@testable import Lesson09LotteryMachine

/// The course is described once, in `Sources/LessonKit/Steps/course.json`: Package.swift builds the targets it
/// lists and the harness plays the steps it lists. These tests prove the two read it alike.
@Suite struct CourseManifestTests {
    /// Package.swift as SwiftPM evaluated it (from its cache, if the manifest's text is unchanged).
    static func evaluatedPackage() async throws -> [String: [String: Any]] {
        // A scratch folder of its own: the one of the `swift test` running this is locked by it.
        let scratch = Rig.packageRoot.appendingPathComponent(".build/course-manifest").path
        var dump = ChildProcess(command: ["swift", "package", "--scratch-path", scratch, "dump-package"])
        dump.directory = Rig.packageRoot
        let result = try await dump.finished(watchdog: Watchdog(limit: .seconds(300)))
        #expect(result.exited && result.status == 0, "\(result.errors)")
        let package = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let targets = try #require(package["targets"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: targets.map { ($0["name"] as? String ?? "", $0) })
    }

    /// The names a target depends on.
    static func dependencies(_ target: [String: Any]) -> Set<String> {
        let listed = target["dependencies"] as? [[String: Any]] ?? []
        return Set(listed.flatMap(\.values).compactMap { ($0 as? [Any])?.first as? String })
    }

    /// The Swift language mode a target is compiled in.
    static func languageMode(_ target: [String: Any]) -> String? {
        let settings = target["settings"] as? [[String: Any]] ?? []
        return settings.lazy.compactMap { (($0["kind"] as? [String: Any])?["swiftLanguageMode"] as? [String: Any])?["_0"] as? String }
            .first
    }

    static let stale =
        "; SwiftPM caches Package.swift by its own text, so after an edit of course.json run "
        + "`swift package purge-cache` and build again"

    /// Every step of the runtime catalog is an executable target built as its manifest entry says (its story,
    /// its libraries, its language mode, its variants folder), and Package.swift builds no step the catalog lacks.
    @Test func packageSwiftBuildsTheStepsTheCatalogPlays() async throws {
        let targets = try await Self.evaluatedPackage()
        for step in LessonCatalog.all {
            let target = try #require(targets[step.target], "Package.swift builds no \(step.target)\(Self.stale)")
            #expect(target["type"] as? String == "executable", "\(step.target)")
            let dependencies = Self.dependencies(target)
            #expect(dependencies.contains(step.story ?? "LessonKit"), "\(step.target): \(dependencies)\(Self.stale)")
            #expect(Set(step.libraries).isSubset(of: dependencies), "\(step.target): \(dependencies)\(Self.stale)")
            #expect(Self.languageMode(target) == String(step.languageMode), "\(step.target)\(Self.stale)")
            let sources = target["sources"] as? [String] ?? []
            let variantsFolder = "Variants/\(step.target)"
            #expect(sources.contains(variantsFolder) == !step.variants.isEmpty, "\(step.target): \(sources)\(Self.stale)")
        }
        let built = targets.filter { $0.value["type"] as? String == "executable" && $0.value["path"] as? String == "Sources" }
        #expect(Set(built.keys) == Set(LessonCatalog.all.map(\.target)), "\(Self.stale)")
    }

    /// Every exercise starts from a target Package.swift builds, with the libraries its manifest entry names,
    /// and is solved by a folder that exists.
    @Test func everyExercisesStartIsBuilt() async throws {
        let targets = try await Self.evaluatedPackage()
        for exercise in CourseManifest.shared.exercises {
            let start = try #require(targets[exercise.start], "exercise \(exercise.number)\(Self.stale)")
            #expect(Set(exercise.startLibraries ?? []).isSubset(of: Self.dependencies(start)), "\(Self.stale)")
            let solution = Rig.packageRoot.appendingPathComponent("Sources/\(exercise.solution)").path
            #expect(FileManager.default.fileExists(atPath: solution), "exercise \(exercise.number): \(solution)")
        }
        #expect(ExerciseCatalog.all.map(\.number) == CourseManifest.shared.exercises.map(\.number))
    }

    /// The variants each step's code offers (flag and controller) are the ones the manifest lists for it: what
    /// maps a variant's controller to the step and flag that play it.
    @Test func everyStepsVariantsAreTheManifests() throws {
        var offered: [Int: [LessonEntry.Variant]] = [:]
        for (number, controller) in ScoreboardRuns.controllers {
            offered[number] = controller.variants.map { .init(flag: $0.flag, controller: "\($0.controller)") }
        }
        offered[9] = LotteryViewController.variants.map { .init(flag: $0.flag, controller: "\($0.controller)") }
        for step in LessonCatalog.all where offered[step.number] != nil || !step.variants.isEmpty {
            #expect(offered[step.number] == step.variants, "step \(step.number)")
        }
        let offeredCount = offered.values.map(\.count).reduce(0, +)
        let listedCount = LessonCatalog.all.map(\.variants.count).reduce(0, +)
        #expect(offeredCount == listedCount)
    }

    /// A controller's full type name leads to the step that runs it and the flag that picks it: what a relaunch
    /// needs to start the same app as a process of its own.
    @Test func aControllerLeadsToItsStepAndFlag() throws {
        let variant = try #require(LessonCatalog.launch(of: String(reflecting: NoCheckLotteryViewController.self)))
        #expect(variant.entry.target == "Lesson09LotteryMachine" && variant.flag == "no-check")
        for (number, controller) in ScoreboardRuns.controllers {
            let own = try #require(LessonCatalog.launch(of: String(reflecting: controller)), "\(controller)")
            #expect(own.entry.number == number && own.flag == nil, "\(controller)")
        }
        #expect(LessonCatalog.launch(of: "Workbench.AppsViewController") == nil)
    }

    /// The manifest is the course: each step's text, and its comparison's step, exist.
    @Test func everyStepsTextAndComparisonExist() throws {
        for step in LessonCatalog.all {
            #expect(FileManager.default.fileExists(atPath: Rig.packageRoot.appendingPathComponent(step.text).path))
            if let before = step.comparison?.before { #expect(LessonCatalog.entry(before) != nil, "step \(step.number)") }
        }
        #expect(Set(LessonCatalog.all.map(\.number)).count == LessonCatalog.all.count)
    }
}
