import Foundation
import LessonKit
import SlowNetwork
import TableKit
import Testing

@testable import Lesson07CustomOperation

/// Every fault the simulated network and disk can inject, played against the
/// last image step (7). Each case names what it injects and what must hold;
/// every case also keeps the invariants of `Reliability.checkInvariants` and
/// `Reliability.checkDisk`. docs/reliability.md is the table of these cases.
@Suite struct FaultMatrixTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        var scenario: Scenario
        var options = Reliability.options()
        /// Where the Caches folder is, relative to the sandbox.
        var caches = "Library/Caches"
        /// Done to the sandbox before the run.
        var prepare: @Sendable (Lesson06Tests.Sandbox) throws -> Void = { _ in }
        var duplicatesAllowed = false
        /// Files the test put in the sandbox itself, not the app.
        var givenFiles: Set<String> = []
        /// Whether every visible row must end with its own icon.
        var mustEndOwn = true
        let check: @Sendable (ScenarioResult, Lesson06Tests.Sandbox) throws -> Void

        var testDescription: String { name }
    }

    static let icons = AppCatalog.bundled().entries.map(\.icon)

    static func requests(for row: Int, in result: ScenarioResult) -> Int {
        result.timeline.requests.filter { $0.url == SlowNetwork.resourceName(icons[row]) }.count
    }

    static let cases: [Case] = [
        Case(name: "offline from the start", scenario: .offlineBrowse, mustEndOwn: false) { result, sandbox in
            let report = result.report
            // Each icon shown is tried once and given up: no reload loop, and
            // on the story clock every request has failed by the end.
            #expect(report.requests == report.uniqueURLs && report.requests > 0)
            #expect(report.failedRequests == report.requests)
            #expect(report.ownIconsAtEnd == 0)
            #expect(report.diskCacheFiles == 0)
        },
        Case(
            name: "offline mid-scroll, then online",
            scenario: Scenario(
                name: "offline-mid-scroll", summary: "",
                steps: [
                    .settle(timeout: 5), .drag(toRow: 6, seconds: 0.5), .goOffline, .drag(toRow: 16, seconds: 0.5),
                    .pause(seconds: 1), .goOnline,
                ] + Reliability.showAgain(16, times: 1))
        ) { result, _ in
            #expect(result.report.failedRequests > 0)
        },
        Case(
            name: "fail-rate 0.3, seed 7",
            scenario: Scenario(
                name: "fail-rate", summary: "",
                steps: Scenario.standard.steps.dropLast(2) + Reliability.showAgain(0, times: 4)),
            options: Reliability.options(failRate: 0.3, seed: 7)
        ) { result, _ in
            #expect(result.report.failedRequests > 0)
        },
        Case(
            name: "rows 0-2 fail 3 times, then work",
            scenario: {
                var scenario = Scenario(
                    name: "fail-three-times", summary: "",
                    steps: [.settle(timeout: 5)] + Reliability.showAgain(0, times: 3))
                scenario.rowRules = [(rows: [0, 1, 2], behavior: .failFirst(3))]
                return scenario
            }()
        ) { result, _ in
            // Asked again each time the row was shown, and no more once it worked.
            for row in 0...2 { #expect(requests(for: row, in: result) == 4) }
            #expect(requests(for: 3, in: result) == 1)
        },
        Case(
            name: "corrupt bytes for row 1",
            scenario: {
                var scenario = Scenario(
                    name: "corrupt", summary: "", steps: [.settle(timeout: 5)] + Reliability.showAgain(0, times: 1))
                scenario.rowRules = [(rows: [1], behavior: .corrupt)]
                return scenario
            }(),
            mustEndOwn: false
        ) { result, sandbox in
            let report = result.report
            // Row 1 keeps its placeholder; never cached, asked again when shown again.
            #expect(report.ownIconsAtEnd == report.visibleRowsAtEnd - 1)
            #expect(requests(for: 1, in: result) == 2)
            #expect(!sandbox.files().contains("Library/Caches/" + Reliability.cacheFileName(for: icons[1])))
        },
        Case(
            name: "truncated body for row 2",
            scenario: {
                var scenario = Scenario(
                    name: "truncate", summary: "", steps: [.settle(timeout: 5)] + Reliability.showAgain(0, times: 1))
                scenario.rowRules = [(rows: [2], behavior: .truncate)]
                return scenario
            }(),
            mustEndOwn: false
        ) { result, sandbox in
            let report = result.report
            #expect(report.ownIconsAtEnd == report.visibleRowsAtEnd - 1)
            #expect(requests(for: 2, in: result) == 2)
            #expect(!sandbox.files().contains("Library/Caches/" + Reliability.cacheFileName(for: icons[2])))
        },
        Case(
            name: "very slow rows (10+: 5-10 s), flicked over",
            scenario: {
                // Waits on for everything queued while flicking (3 at a time) to arrive.
                var scenario = Scenario.fastScrollSlowRows
                scenario.steps.append(.settle(timeout: 60))
                return scenario
            }(),
            options: Reliability.options()
        ) { result, _ in
            // Every slow icon shown was fetched once, however often its row passed by.
            #expect(result.report.requests == result.report.uniqueURLs)
        },
        Case(
            name: "relaunch mid-download",
            scenario: {
                var scenario = Scenario(
                    name: "relaunch-mid-download", summary: "",
                    steps: [.pause(seconds: 0.5), .relaunch, .settle(timeout: 10)])
                scenario.slowRows = 0..<Int.max
                scenario.slowSeconds = 1...2
                return scenario
            }(),
            // The first launch's downloads run on after it is gone (in a real
            // relaunch its process would be dead), beside the second launch's.
            duplicatesAllowed: true
        ) { result, sandbox in
            #expect(result.report.requestsAfterRelaunch ?? 0 > 0)
        },
        Case(
            name: "the Caches folder deleted while running",
            scenario: Scenario(
                name: "delete-caches", summary: "",
                steps: [.settle(timeout: 5), .deleteCachesFolder, .drag(toRow: 20, seconds: 0.5), .settle(timeout: 5)])
        ) { result, sandbox in
            // Made again by the next download: rows 20-27 are on disk, rows 0-7 are gone with the folder.
            let files = Set(sandbox.files())
            for row in 20..<28 {
                #expect(files.contains("Library/Caches/" + Reliability.cacheFileName(for: icons[row])))
            }
            #expect(!files.contains("Library/Caches/" + Reliability.cacheFileName(for: icons[0])))
        },
        Case(
            name: "an unwritable Caches folder",
            scenario: .relaunch,
            caches: "not-a-folder/Caches",
            prepare: { sandbox in
                // A regular file where the folder's parent should be: it cannot be made, even by root.
                try Data("a file".utf8).write(to: sandbox.root.appendingPathComponent("not-a-folder"))
            },
            givenFiles: ["not-a-folder"]
        ) { result, sandbox in
            #expect(result.report.diskCacheFiles == 0)
            // No disk cache: the relaunch downloads again, as step 5 did.
            #expect(result.report.requestsAfterRelaunch == result.report.uniqueURLs)
        },
        Case(
            name: "damaged cache files",
            scenario: .relaunch,
            prepare: { sandbox in
                let caches = sandbox.caches
                try FileManager.default.createDirectory(at: caches, withIntermediateDirectories: true)
                func file(_ row: Int) -> URL {
                    caches.appendingPathComponent(Reliability.cacheFileName(for: icons[row]))
                }
                // Row 0: an error page. Row 1: a good icon cut in half. Row 3: an empty file.
                try Data("<html>502 Bad Gateway</html>".utf8).write(to: file(0))
                let good = IconArt.ppm(for: icons[1])
                try good.prefix(good.count / 2).write(to: file(1))
                try Data().write(to: file(3))
            }
        ) { result, sandbox in
            // Each a miss: downloaded once, replaced by the real icon (checkDisk
            // reads every file back), read from disk after the relaunch.
            for row in [0, 1, 3] { #expect(requests(for: row, in: result) == 1) }
            #expect(result.report.requestsAfterRelaunch == 0)
        },
    ]

    @Test(arguments: cases)
    func stepSevenSurvives(_ fault: Case) async throws {
        let sandbox = try Lesson06Tests.Sandbox()
        try fault.prepare(sandbox)
        let catalog = AppCatalog.bundled()
        let result = await ScenarioRunner.run(
            NewProcessRuns.routed(
                ScenarioSetup(
                    lesson: "07", title: fault.name, controller: Lesson07CustomOperation.AppsViewController.self,
                    scenario: fault.scenario, options: fault.options, catalog: catalog,
                    cachesDirectory: sandbox.root.appendingPathComponent(fault.caches))))
        let report = result.report
        Reliability.checkInvariants(report, step: 7, duplicatesAllowed: fault.duplicatesAllowed)
        if fault.mustEndOwn {
            #expect(report.ownIconsAtEnd == report.visibleRowsAtEnd, "\(report.summary)")
        }
        Reliability.checkDisk(sandbox, catalog: catalog, ignoring: fault.givenFiles)
        try fault.check(result, sandbox)
    }

    /// The unwritable case as a learner sees it: the step runs, and says once why nothing is kept on disk.
    @Test(arguments: ["Lesson06SandboxCache", "Lesson07CustomOperation", "Lesson10WebImage", "Lesson11SwiftConcurrency"])
    func anUnwritableCachesFolderIsSaidOnce(target: String) async throws {
        let blocker = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-folder-\(UUID().uuidString)")
        try Data("a file".utf8).write(to: blocker)
        defer { try? FileManager.default.removeItem(at: blocker) }
        let run = try await LessonProcess.run(
            target, ["--scenario", "standard", "--json"], environment: ["XDG_CACHE_HOME": blocker.path]
        )
        #expect(run.status == 0 && !run.crashed)
        let lines = run.errors.split(separator: "\n")
        #expect(lines.count == 1, "\(run.errors)")
        #expect(lines.first?.hasPrefix("no disk cache: cannot write to \(blocker.path)/") == true, "\(lines)")
        let report = try run.report()
        #expect(report.ownIconsAtEnd == report.visibleRowsAtEnd && report.diskCacheFiles == 0)
    }
}
