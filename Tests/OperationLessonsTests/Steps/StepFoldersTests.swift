import Foundation
import LessonKit
import Testing

/// A step's folder holds its lesson and nothing else, so that `diff -r` of two
/// consecutive steps is the lesson: the variants a step plays by a flag (its
/// mistakes, `--naive-pool`…) sit in `Sources/Variants/<step>`.
@Suite struct StepFoldersTests {
    static let sources = Rig.packageRoot.appendingPathComponent("Sources")

    /// The image steps, in pairs of a step and the one that fixes its bug.
    static let consecutive = [
        ("Lesson01SyncLoad", "Lesson02AsyncPlaceholder", "02"), ("Lesson02AsyncPlaceholder", "Lesson03ModelCache", "03"),
        ("Lesson03ModelCache", "Lesson04CacheDictionary", "04"), ("Lesson04CacheDictionary", "Lesson05OperationPool", "05"),
        ("Lesson05OperationPool", "Lesson06SandboxCache", "06"), ("Lesson06SandboxCache", "Lesson07CustomOperation", "07"),
        ("Lesson10WebImage", "Lesson11SwiftConcurrency", "11"),
    ]

    static func swiftFiles(_ folder: URL) -> [String: String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var files: [String: String] = [:]
        for name in names where name.hasSuffix(".swift") {
            files[name] = try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        }
        return files
    }

    /// Every file that differs between two consecutive steps is one the later step's text names: the
    /// diff is the lesson.
    @Test(arguments: consecutive) func theDiffOfTwoStepsIsTheLesson(before: String, after: String, lesson: String) throws {
        let old = Self.swiftFiles(Self.sources.appendingPathComponent(before))
        let new = Self.swiftFiles(Self.sources.appendingPathComponent(after))
        #expect(!new.isEmpty, "no Swift files in Sources/\(after)")
        let changed = Set(old.keys).union(new.keys).filter { old[$0] != new[$0] }.sorted()
        #expect(!changed.isEmpty, "Sources/\(before) and Sources/\(after) are the same")
        let textName = try #require(
            try FileManager.default.contentsOfDirectory(atPath: Rig.packageRoot.appendingPathComponent("Lessons").path)
                .first { $0.hasPrefix(lesson + "-") })
        let text = try String(
            contentsOf: Rig.packageRoot.appendingPathComponent("Lessons").appendingPathComponent(textName), encoding: .utf8)
        for file in changed {
            #expect(text.contains(file), "\(file) differs between \(before) and \(after); Lessons/\(textName) never names it")
        }
    }

    /// No step folder declares a variant, and every variant a step offers is defined in its variants folder.
    @Test func variantsLiveOutsideTheStepsFolders() throws {
        let steps = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter { $0.hasPrefix("Lesson") }
            .filter { $0.first(where: \.isNumber) != nil }
        #expect(Set(steps) == Set(LessonCatalog.all.map(\.target)), "\(steps)")
        var offered = 0
        for step in steps {
            for (name, text) in Self.swiftFiles(Self.sources.appendingPathComponent(step)) {
                #expect(!text.contains("Variant("), "Sources/\(step)/\(name) declares a variant")
            }
            let variants = Self.swiftFiles(Self.sources.appendingPathComponent("Variants").appendingPathComponent(step))
            let all = variants.values.joined(separator: "\n")
            for call in all.components(separatedBy: "Variant(").dropFirst() {
                guard let range = call.range(of: "controller: ") else { continue }
                let controller = String(call[range.upperBound...].prefix { $0.isLetter || $0.isNumber })
                offered += 1
                #expect(
                    variants.values.contains { $0.contains("class \(controller)") },
                    "\(step) offers \(controller), which is not defined in Sources/Variants/\(step)")
            }
        }
        #expect(offered >= 12, "only \(offered) variants found")
    }
}
