import Foundation
import LessonKit
import LessonSupport
import SlowNetwork
import Synchronization
import Testing

@testable import Lesson05OperationPool
@testable import Lesson06SandboxCache
@testable import Lesson07CustomOperation

#if canImport(Glibc)
    import Glibc
#endif

/// What a learner (or a hostile catalog) can feed the lessons: another
/// catalog, a broken one, icon URLs made to escape the Caches folder, bad
/// flags. A clear error or a normal run, never a crash, never a file outside
/// the Caches folder. CommandLineTests holds step 1's cases; these extend them
/// to every step.
@Suite struct BadInputTests {
    static let imageSteps = LessonCatalog.imageListSteps.map(\.target)

    static func writeCatalog(_ entries: [AppEntry], to file: URL, format: PropertyListSerialization.PropertyListFormat)
        throws
    {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = format
        try encoder.encode(entries).write(to: file)
    }

    /// `--catalog FILE` on every image step: a three-row catalog is what the
    /// step shows. Offline, so step 4's racy cache only ever gets nil: it
    /// never grows, so it cannot crash (LessonProcess.swift), though Thread
    /// Sanitizer may still see the race (`LessonRun.finished`).
    @Test(arguments: imageSteps)
    func theCatalogFlagLoadsAnotherCatalog(target: String) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("three apps.plist")
        _ = try AppCatalog.generated(rows: 3, file: file)
        let run = try await LessonProcess.run(
            target, ["--catalog", file.path, "--scenario", "offline", "--offline", "--speed", "50", "--json"])
        #expect(run.finished, "exit status \(run.status): \(run.errors.suffix(500))")
        let report = try run.report()
        #expect(report.visibleRowsAtEnd == 3)
        #expect(report.uniqueURLs == 3)
    }

    static let malformedCatalogs: [(name: String, contents: String, problem: String)] = [
        (
            "missing-name.plist",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><array>
            <dict><key>icon</key><string>https://x/qq.png</string><key>download</key><string>1</string></dict>
            </array></plist>
            """,
            "row 0 has no 'name' field"
        ),
        (
            "icon-is-a-number.plist",
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><array>
            <dict><key>name</key><string>QQ</string><key>icon</key><integer>7</integer>
            <key>download</key><string>1</string></dict>
            </array></plist>
            """,
            "is not an array of {name, icon, download} dictionaries (row 0, icon)"
        ),
        (
            "truncated.plist", "<?xml version=\"1.0\"?><plist version=\"1.0\"><array><dict>",
            "is not a valid property list"
        ),
    ]

    /// A broken catalog on every image step: one line naming the file and what
    /// is wrong, exit status 1, nothing on stdout (step 1's six cases are in CommandLineTests).
    @Test(arguments: imageSteps.dropFirst(), malformedCatalogs.indices)
    func aMalformedCatalogIsOneLineNamingTheFile(target: String, index: Int) async throws {
        let (name, contents, problem) = Self.malformedCatalogs[index]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(name)
        try contents.write(to: file, atomically: true, encoding: .utf8)
        let run = try await LessonProcess.run(target, ["--catalog", file.path, "--speed", "50", "--json"])
        #expect(run.status == 1 && !run.crashed)
        let lines = run.errors.split(separator: "\n")
        #expect(lines.count == 1, "\(run.errors)")
        #expect(lines.first?.hasPrefix("\(target): catalog \(file.path) \(problem)") == true, "\(lines)")
        #expect(run.output.isEmpty)
    }

    /// `--catalog` on something that is not a file says what it is, at once:
    /// a FIFO is never opened (reading it would wait for a writer for ever).
    @Test func aCatalogThatIsNotAFileIsNamedForWhatItIs() async throws {
        let folder = try ScratchFolder.make("not-a-catalog")
        defer { ScratchFolder.remove(folder) }
        let fifo = folder.appendingPathComponent("apps.plist")
        try #require(mkfifo(fifo.path, 0o644) == 0)
        for (path, problem) in [
            (folder.path, "is a folder, not a catalog file"),
            (fifo.path, "is a FIFO (a named pipe), not a catalog file"),
            ("/dev/null", "is a device, not a catalog file"),
        ] {
            let run = try await Rig.runProduct(
                "Lesson01SyncLoad", ["--catalog", path, "--json"], timeLimit: .seconds(30))
            #expect(run.status == 1)
            #expect(run.standardError == "Lesson01SyncLoad: catalog \(path) \(problem)\n")
        }
    }

    /// A catalog nested 20,000 arrays deep (300 KB) overflowed the parser's
    /// stack (exit 139, no word) in steps 1, 6 and 10; a file past the size
    /// limit was "NSCocoaErrorDomain error 256" once memory ran out. Both
    /// are refused before parsing, in one line naming the file.
    @Test(arguments: ["Lesson01SyncLoad", "Lesson06SandboxCache", "Lesson10WebImage"])
    func aCatalogTooDeepOrTooBigIsRefusedInOneLine(step: String) async throws {
        let folder = try ScratchFolder.make("huge-catalog")
        defer { ScratchFolder.remove(folder) }
        let deep = folder.appendingPathComponent("deep.plist")
        try (#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0">"#
            + String(repeating: "<array>", count: 20_000) + String(repeating: "</array>", count: 20_000) + "</plist>")
            .write(to: deep, atomically: true, encoding: .utf8)
        // Sparse: 300 MB long, hardly a block on disk.
        let big = folder.appendingPathComponent("big.plist")
        try #require(FileManager.default.createFile(atPath: big.path, contents: nil) && truncate(big.path, 300 << 20) == 0)
        for (file, problem) in [
            (deep, "nests arrays or dictionaries more than 100 deep; a catalog is an array of {name, icon, download} dictionaries"),
            (big, "is 300 MB; a catalog may be at most 256 MB (a million rows take about 90 MB)"),
        ] {
            let run = try await Rig.runProduct(step, ["--catalog", file.path, "--json"], timeLimit: .seconds(30))
            #expect(run.status == 1)
            #expect(run.standardError == "\(step): catalog \(file.path) \(problem)\n")
        }
    }

    /// Step 6 on a three-row catalog in `folder`, playing its relaunch paced
    /// at `speed` (a quarter: seconds), its temporary files in `temporary`.
    static func pacedRelaunch(in folder: URL, temporary: URL, speed: Double = 0.25) throws -> (ChildProcess, URL) {
        let file = folder.appendingPathComponent("three.plist")
        _ = try AppCatalog.generated(rows: 3, file: file)
        var step = ChildProcess(
            Rig.productsDirectory.appendingPathComponent("Lesson06SandboxCache"),
            ["--catalog", file.path, "--scenario", "relaunch", "--plain", "--pace", "--speed", "\(speed)"])
        step.environment = ["XDG_CACHE_HOME": folder.appendingPathComponent("caches").path, "TMPDIR": temporary.path]
        return (step, file)
    }

    /// The relaunched app reads the catalog again; deleted meanwhile, it still
    /// finds the rows the run started with (the run reads its own copy).
    @Test func aCatalogDeletedDuringARunIsStillTheCatalogOfTheRelaunch() async throws {
        let folder = try ScratchFolder.make("deleted-catalog")
        let temporary = try ScratchFolder.make("deleted-catalog-tmp")
        defer {
            ScratchFolder.remove(folder)
            ScratchFolder.remove(temporary)
        }
        // Paced at a quarter of the story's speed, the relaunch comes seconds
        // after the run starts: the file is gone well before it.
        let (relaunch, file) = try Self.pacedRelaunch(in: folder, temporary: temporary)
        var step = relaunch
        let output = Mutex("")
        step.output = .stream { data in
            let text = output.withLock {
                $0 += String(decoding: data, as: UTF8.self)
                return $0
            }
            if text.contains("Lesson 06") { try? FileManager.default.removeItem(at: file) }
        }
        let finished = try await step.finished(watchdog: Watchdog(limit: .seconds(120)))
        #expect(finished.exited && finished.status == 0, "\(finished.errors)")
        #expect(!FileManager.default.fileExists(atPath: file.path))
        let summary = output.withLock { $0 }
        #expect(summary.contains("At the end 3 of 3 rows show their own icon."), "\(summary.suffix(1500))")
        // The run's copy is gone with it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary.path) == [])
    }

    /// A run killed by SIGKILL cannot remove its copy of the catalog (88 MB
    /// for a million rows): the next run with a catalog removes it.
    @Test func aCatalogCopyLeftByAKilledRunIsRemovedByTheNext() async throws {
        let folder = try ScratchFolder.make("killed-catalog")
        let temporary = try ScratchFolder.make("killed-catalog-tmp")
        defer {
            ScratchFolder.remove(folder)
            ScratchFolder.remove(temporary)
        }
        let (relaunch, file) = try Self.pacedRelaunch(in: folder, temporary: temporary, speed: 0.1)
        var step = relaunch
        // Killed as soon as its header is out, from the reader's own thread
        // (the header comes after the copy is made): however busy the machine.
        let state = Mutex<(pid: pid_t?, headerSeen: Bool)>((nil, false))
        step.output = .stream { data in
            state.withLock {
                $0.headerSeen = $0.headerSeen || String(decoding: data, as: UTF8.self).contains("Lesson 06")
                if $0.headerSeen, let pid = $0.pid { kill(pid, SIGKILL) }
            }
        }
        let child = try step.launch()
        state.withLock {
            $0.pid = child.pid
            if $0.headerSeen { kill(child.pid, SIGKILL) }
        }
        let killed = await child.finished(watchdog: Watchdog(limit: .seconds(120)))
        func copies() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] }
        try #require(killed.signal == SIGKILL, "the run was not killed: \(killed.errors)")
        try #require(copies().count == 1, "a killed run leaves its copy: \(copies())")

        step.arguments = ["--catalog", file.path, "--json"]
        step.output = .collect
        let next = try await step.finished(watchdog: Watchdog(limit: .seconds(120)))
        #expect(next.exited && next.status == 0, "\(next.errors)")
        #expect(copies() == [])
    }

    /// Step 8 plays its own story: a list of parts that names none is refused.
    @Test(arguments: [
        (["--part", ""], "--part needs a value"),
        (["--part", " , "], "--part needs a value"),
        (["--timeline", " "], "--timeline needs a value"),
    ])
    func stepEightRefusesWhatItCannotPlay(arguments: [String], message: String) async throws {
        let run = try await Rig.runProduct("Lesson08Dependencies", arguments, timeLimit: .seconds(60))
        #expect(run.status == 2)
        #expect(run.standardError.hasPrefix("Lesson08Dependencies: \(message)"), "\(run.standardError.prefix(200))")
        #expect(run.standardOutput.isEmpty)
    }

    /// Offline, step 8's download fails, and the tour says so: it does not
    /// blame the order of operations that did wait for each other.
    @Test func stepEightOfflineSaysTheDownloadFailed() async throws {
        let run = try await Rig.runProduct(
            "Lesson08Dependencies", ["--offline", "--part", "chain", "--variant", "fixed", "--plain", "--speed", "20"],
            timeLimit: .seconds(60))
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("unzip found no package: the download failed"))
        #expect(!run.standardOutput.contains("started before the download finished"))
    }

    /// `--latency` is the latency of step 8's own download (docs/cli.md).
    @Test func stepEightTakesTheLatencyOfItsDownload() async throws {
        let run = try await Rig.runProduct(
            "Lesson08Dependencies", ["--latency", "100", "--part", "chain", "--json", "--speed", "20"],
            timeLimit: .seconds(60))
        #expect(run.status == 0, "\(run.standardError)")
    }

    /// Every lesson, image steps and the two others: exit status 2, the flag
    /// named on one line, then the usage.
    @Test(arguments: LessonCatalog.all.map(\.target), [["--bogus"], ["--speed", "fast"], ["--seed"]])
    func aBadFlagExitsTwoWithTheUsage(target: String, arguments: [String]) async throws {
        let run = try await LessonProcess.run(target, arguments)
        #expect(run.status == 2 && !run.crashed)
        let lines = run.errors.split(separator: "\n")
        #expect(
            lines.first?.hasPrefix("\(target): ") == true && lines.first?.contains(arguments[0]) == true, "\(lines)")
        #expect(lines.dropFirst().first?.hasPrefix("usage: \(target)") == true, "\(lines)")
        #expect(run.output.isEmpty)
    }

    /// Icon URLs a catalog could hold to break the app or its disk cache.
    static let hostileIcons = [
        "",
        "icons/qq.png",
        "/etc/passwd",
        "../../../../../../tmp/escape.ppm",
        "file:///etc/passwd",
        "//////",
        "https://cdn.example.com/" + String(repeating: "../", count: 20_000) + "enormous.png",
        "https://cdn.example.com/apps/..%2F..%2F..%2Fescape.ppm",
        "https://cdn.example.com/apps/%2e%2e/%2e%2e/escape.ppm",
        "https://cdn.example.com/apps/%00.png",
        "https://cdn.example.com/apps/nul\u{0}byte.png",
        "https://cdn.example.com/apps/\u{1}\u{7F}\u{FFFF}.png",
        "https://cdn.example.com/apps/back\\slash\\..\\..\\escape.ppm",
        "https://cdn.example.com/ok/icon.png",
    ]

    /// Steps 5–7 with every hostile URL on screen at once: the run ends, the
    /// UI is touched on the main queue only, no row shows another's icon, and
    /// (6, 7) every file written is directly in Caches, named by a hash, and
    /// holds exactly its icon. A binary plist, because XML cannot hold a NUL.
    @Test(arguments: [5, 6, 7])
    func hostileIconURLsStayInsideTheCachesFolder(step: Int) async throws {
        let sandbox = try Lesson06Tests.Sandbox()
        let entries = Self.hostileIcons.enumerated().map { AppEntry(name: "App \($0)", icon: $1, download: "1") }
        let file = sandbox.root.appendingPathComponent("hostile.plist")
        try Self.writeCatalog(entries, to: file, format: .binary)
        let catalog = try AppCatalog.load(from: file)
        #expect(catalog.entries.map(\.icon) == Self.hostileIcons)
        let controller: any LessonController.Type =
            switch step {
            case 5: Lesson05OperationPool.AppsViewController.self
            case 6: Lesson06SandboxCache.AppsViewController.self
            default: Lesson07CustomOperation.AppsViewController.self
            }
        let scenario = Scenario(
            name: "hostile-urls", summary: "",
            steps: [
                .settle(timeout: 3), .drag(toRow: 6, seconds: 0.3), .settle(timeout: 3), .relaunch, .settle(timeout: 3),
            ])
        let report = await ScenarioRunner.run(
            NewProcessRuns.routed(
                ScenarioSetup(
                    lesson: "0\(step)", title: "hostile URLs", controller: controller, scenario: scenario,
                    options: Reliability.options(), catalog: catalog, cachesDirectory: sandbox.caches))
        ).report
        Reliability.checkInvariants(report, step: step)
        #expect(report.requests > 0)
        let files = Reliability.checkDisk(sandbox, catalog: catalog, ignoring: ["hostile.plist"])
        // Step 5 has no disk cache; steps 6 and 7 kept whatever could be fetched.
        #expect(step == 5 ? files == 0 : files > 0)
    }
}
