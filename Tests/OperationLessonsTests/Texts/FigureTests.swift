import Foundation
import LessonKit
import LessonSupport
import Testing

/// Every figure the texts quote (each lists its own at its end, in a
/// `<!-- figures … -->` comment) is what its run gives today. On the story clock the same flags give the same figures, so a
/// mismatch means the text is stale: `swift run lessons docs --write`
/// rewrites it from fresh runs.
@Suite struct FigureTests {
    static let root = Rig.packageRoot

    /// The texts that quote figures: the lessons, the README, the docs.
    static var texts: [String] {
        let folders = ["Lessons", "docs"]
        let markdown = folders.flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? [])
                .filter { $0.hasSuffix(".md") }.map { "\(folder)/\($0)" }
        }
        return (["README.md"] + markdown).sorted()
    }

    @Test func everyQuotedFigureIsWhatItsRunGives() async throws {
        var figures: [Figure] = []
        for file in Self.texts {
            let text = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            figures += try FigureList.figures(in: text, file: file)
        }
        #expect(!figures.isEmpty)
        let mismatches = try await FigureList.check(figures, root: Self.root, report: Self.report)
        for mismatch in mismatches { Issue.record("\(mismatch)") }
    }

    /// The check can fail: a figure the run does not give is reported, with
    /// what the text says and what was measured.
    @Test func aChangedFigureIsCaught() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("figures-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "Step 2 asks for 47 requests on the standard scroll.\n".write(
            to: folder.appendingPathComponent("text.md"), atomically: true, encoding: .utf8)
        let figures = try FigureList.figures(
            in: "<!-- figures\nasks for {} requests :: 2 --scenario standard :: requests\n-->\n", file: "text.md")
        let mismatches = try await FigureList.check(figures, root: folder, report: Self.report)
        #expect(mismatches.map(\.found) == ["asks for 47 requests"])
        #expect(mismatches.map(\.measured) == ["asks for 48 requests"])
        try FigureList.write(mismatches, root: folder)
        let after = try await FigureList.check(figures, root: folder, report: Self.report)
        #expect(after.isEmpty)
    }

    @Test func aFigureCanBeADifferenceAndGrouped() throws {
        let figure = try #require(
            try FigureList.figures(
                in: "<!-- figures\n{,} more :: 4 --scenario offline :: requests - uniqueURLs\n-->", file: "a.md"
            ).first)
        #expect(try figure.text(from: ["requests": 13653, "uniqueURLs": 18]) == "13,635 more")
        #expect(throws: FigureError.self) {
            try FigureList.figures(in: "<!-- figures\nno figure :: 2 :: requests\n-->", file: "a.md")
        }
    }

    /// A run as the figure names it, as its `--json` report: in this process
    /// where the step allows (shared with the lesson tests when the flags are
    /// only a scenario), in a child process for step 4, whose race can crash
    /// it (and step 3 under Thread Sanitizer, see `ScoreboardRuns`), and for
    /// steps 8 and 9, which play stories of their own.
    @Sendable static func report(_ run: FigureRun) async throws -> [String: Any] {
        let report: Report
        if let controller = ScoreboardRuns.controllers[run.step], !ScoreboardRuns.inChildProcess.contains(run.step) {
            var options = try LessonOptions.parse(
                run.arguments, stepFlags: controller.variants.map { .step("--" + $0.flag, help: $0.help) })
            let variant = controller.variants.first { options.extra[$0.flag] != nil }
            // No --scenario: the step's own, as `lessons run N` plays it.
            let entry = try #require(LessonCatalog.entry(run.step))
            let scenario = try #require(Scenario.named(options.scenario ?? entry.defaultScenario))
            options.scenario = nil
            if variant == nil && run.arguments == ["--scenario", scenario.name] {
                report = await SharedRuns.shared.result(controller, scenario).report
            } else {
                report = await ScenarioRunner.run(
                    NewProcessRuns.routed(
                        ScenarioSetup(
                            lesson: entry.id, title: entry.title, controller: variant?.controller ?? controller,
                            scenario: scenario, options: options))
                ).report
            }
        } else if ScoreboardRuns.inChildProcess.contains(run.step), run.arguments.count == 2,
            run.arguments.first == "--scenario"
        {
            // The scoreboard's and the matrix's run of that step and scenario.
            report = try #require(await ScoreboardRuns.report(step: run.step, scenario: run.arguments[1]))
        } else {
            let entry = try #require(LessonCatalog.entry(run.step))
            report = try await SharedRuns.shared.childReport(entry.target, run.arguments)
        }
        let data = Data(report.json().utf8)
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
}
