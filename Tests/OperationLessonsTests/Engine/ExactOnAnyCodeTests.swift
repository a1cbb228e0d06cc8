import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import Testing

/// Controllers unlike the reference, each played on every scenario its
/// exercise plays, ten times, every other time with both cores busy: the
/// same code gives the same figures, whatever else the machine does. The
/// queues kept in a helper object (SeamTests' `PendingOperationsController`)
/// are not exact yet: one run in ten of memory-warning-then-scroll ends a
/// glide a frame later (issue 33).
@Suite struct ExactOnAnyCodeTests {
    static let runs = 10

    /// The scenarios of `exercise` on which `controller`'s runs did not all give
    /// the same figures, each with the figures that differed.
    static func differences(_ controller: any LessonController.Type, exercise: Int) async -> [String] {
        let play = ImageListChecks.inProcess(controller, exercise: exercise)
        var found: [String] = []
        for scenario in ImageListChecks.scenarios(exercise: exercise) {
            var figures: [[String: String]] = []
            for index in 0..<runs {
                let report = index % 2 == 0 ? try? await play(scenario) : await withBusyCores { try? await play(scenario) }
                figures.append(report.map { Self.figures($0.withoutWallTime) } ?? ["run": "failed"])
            }
            let differing = Set(figures.flatMap(\.keys)).filter { key in Set(figures.map { $0[key] }).count > 1 }
            if !differing.isEmpty {
                found.append("\(scenario.name): " + differing.sorted().map { key in
                    "\(key) \(figures.map { $0[key] ?? "-" })"
                }.joined(separator: "; "))
            }
        }
        return found
    }

    /// A report's figures by their JSON path, each as its JSON text.
    static func figures(_ report: Report) -> [String: String] {
        guard let data = try? JSONEncoder().encode(report), let json = try? JSONSerialization.jsonObject(with: data)
        else { return ["report": "not encodable"] }
        var flat: [String: String] = [:]
        func walk(_ value: Any, _ path: String) {
            if let object = value as? [String: Any] {
                for (key, inner) in object { walk(inner, path.isEmpty ? key : "\(path).\(key)") }
            } else if let array = value as? [Any] {
                for (index, inner) in array.enumerated() { walk(inner, "\(path)[\(index)]") }
            } else {
                flat[path] = "\(value)"
            }
        }
        walk(json, "")
        return flat
    }

    @Test func anUnlimitedQueueThatSuspendsAndCancelsPlaysExact() async {
        let differences = await Self.differences(UnlimitedPoolController.self, exercise: 7)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }

    @Test func aGCDLoaderWithASemaphorePlaysExact() async {
        let differences = await Self.differences(SemaphoreGCDController.self, exercise: 5)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
    }
}
