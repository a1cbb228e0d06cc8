import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit
import Testing

@testable import LessonChecks
@testable import Lesson02AsyncPlaceholder
@testable import Lesson05OperationPool
@testable import Lesson06SandboxCache

/// The bug table (`KnownBug.all`), read as the matrix and the checker read it:
/// every bug is measured present where the course shows it (the step before
/// its fix, the variant that keeps its trap, or a hasty fix written here) and
/// gone in the step that fixes it.
@Suite struct BugTableTests {
    @Test(arguments: KnownBug.all.filter { $0.origin != .hastyFix }.map(\.name))
    func eachBugIsPresentBeforeItsFixAndGoneInTheStepThatFixesIt(_ name: String) async throws {
        try await expectPresentBeforeAndGoneAfter(name)
    }

    /// A hasty fix writes UI from a download thread: a data race Thread
    /// Sanitizer would report against this whole test run, so the TSan leg skips it.
    @Test(.racyStepInProcess, arguments: KnownBug.all.filter { $0.origin == .hastyFix }.map(\.name))
    func eachHastyFixBugIsPresentInAHastyFixAndGoneInTheStepThatFixesIt(_ name: String) async throws {
        try await expectPresentBeforeAndGoneAfter(name)
    }

    private func expectPresentBeforeAndGoneAfter(_ name: String) async throws {
        let bug = try #require(KnownBug.named(name))
        let before = try #require(await Self.reportShowing(bug))
        let after = try #require(await ScoreboardRuns.report(step: bug.fixedIn, scenario: bug.scenario.name))
        let present = try #require(bug.measure.value(before), "\(bug.measure.name) not measured before the fix")
        let gone = try #require(bug.measure.value(after), "\(bug.measure.name) not measured in step \(bug.fixedIn)")
        #expect(bug.presence.isPresent(present), "before the fix: \(bug.measure.text(present))")
        #expect(!bug.presence.isPresent(gone), "step \(bug.fixedIn): \(bug.measure.text(gone))")
    }

    /// The run that shows `bug`: its scenario played by the code the course
    /// shows it with.
    static func reportShowing(_ bug: KnownBug) async -> Report? {
        switch bug.origin {
        case .stepBefore:
            guard let step = bug.stepBefore else { return nil }
            return await ScoreboardRuns.report(step: step, scenario: bug.scenario.name)
        case .variant(let flag):
            let step = ScoreboardRuns.controllers[bug.fixedIn]
            guard let variant = step?.variants.first(where: { $0.flag == flag }) else { return nil }
            return await SharedRuns.shared.result(variant.controller, bug.scenario).report
        case .hastyFix:
            return await SharedRuns.shared.result(ImageSetOnTheDownloadThread.self, bug.scenario).report
        }
    }

    @Test func everyBugIsShownByAStepOrAVariantTheCourseHas() {
        #expect(Set(KnownBug.all.map(\.name)).count == KnownBug.all.count, "bug names are unique")
        for bug in KnownBug.all {
            #expect(Scenario.named(bug.scenario.name) != nil, "\(bug.name): no scenario \(bug.scenario.name)")
            #expect(LessonCatalog.entry(bug.fixedIn)?.showsImageList == true, "\(bug.name): fixed in a table step")
            if case .stepBefore = bug.origin { #expect(bug.stepBefore != nil, "\(bug.name): a fix needs a step before it") }
        }
    }

    @Test func matrixRunsAreSharedBetweenBugsOnOneScenario() {
        let runs = BugMatrix.runs(bugs: KnownBug.all, steps: [1, 2, 3])
        #expect(Set(runs).count == runs.count)
        #expect(runs.count == Set(KnownBug.all.map(\.scenario.name)).count * 3)
    }

    @Test func matrixMarksPresentGoneAndCrashedCells() throws {
        var present = Report()
        present.maxMainStallMs = 4000
        var gone = Report()
        gone.maxMainStallMs = 0
        let bug = try #require(KnownBug.named("downloads freeze the main queue"))
        let steps = [1, 2, 3].compactMap(LessonCatalog.entry)
        let text = BugMatrix.render(bugs: [bug], steps: steps, markdown: false) { run in
            switch run.lesson {
            case 1: .measured(present)
            case 2: .measured(gone)
            default: .failed("crashed (signal 11)")
            }
        }
        #expect(text.contains("✗ 4000 ms"))
        #expect(text.contains("✓ 0 ms←"))
        #expect(text.contains("crash"))
    }

    @Test func unitsReadAsWords() throws {
        let duplicates = try #require(KnownBug.named("a slow icon scrolled away and back is downloaded twice at once"))
        #expect(duplicates.measure.text(1) == "1 duplicate in flight")
        #expect(duplicates.measure.text(3) == "3 duplicates in flight")
        #expect(Measure.plural("blank frame") == "blank frames")
        #expect(Measure.plural("row without its icon at the end") == "rows without its icon at the end")
        #expect(Measure.plural("download started while scrolling") == "downloads started while scrolling")
        #expect(Measure.plural("main-queue violation") == "main-queue violations")
        #expect(Measure.plural("thread blocked at once") == "threads blocked at once")
        let rows = try #require(KnownBug.named("an offline relaunch shows only placeholders")).measure
        #expect(rows.text(8) == "8 rows without their icon at the end")
        #expect(rows.cell(8) == "8")
    }
}

/// Step 2's download with a hasty hand-back: the image is set on the cell
/// from the download's own thread, not from `OperationQueue.main`.
final class ImageSetOnTheDownloadThread: TableViewController, LessonController {
    let network: SlowNetwork
    let catalogURL: URL

    lazy var apps: [Lesson02AsyncPlaceholder.AppInfo] = {
        guard let data = try? Data(contentsOf: catalogURL),
            let apps = try? PropertyListDecoder().decode([Lesson02AsyncPlaceholder.AppInfo].self, from: data)
        else { return [] }
        return apps
    }()

    let queue = OperationQueue()

    required init(environment: LessonEnvironment) {
        network = environment.network
        catalogURL = environment.catalogURL
        super.init()
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        apps.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "app", for: indexPath)
        let app = apps[indexPath.row]
        cell.textLabel.text = app.name
        cell.imageView.image = Image.placeholder
        let network = self.network
        nonisolated(unsafe) let shownIn = cell
        queue.addOperation {
            let data = URL(string: app.icon).flatMap { try? network.data(contentsOf: $0) }
            shownIn.imageView.image = data.flatMap { Image(data: $0) }
        }
        return cell
    }
}
