import Foundation
import LessonKit
import SlowNetwork
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Where a run writes, and what it finds there: a full or closed stream, a
/// timeline path that is not a plain file, a Caches folder that will not
/// empty, and what a killed run left half-written. A failure is said and
/// shows in the exit status; nothing the learner has is replaced by mistake.
@Suite struct FaultyOutputTests {
    /// A product run by `sh`, its streams redirected as a shell does (`> /dev/full`, `>&-`).
    static func run(_ product: String, _ arguments: [String], redirection: String) async throws -> Rig.ProcessResult {
        let executable = Rig.productsDirectory.appendingPathComponent(product).path
        var child = ChildProcess(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \"$0\" \"$@\" \(redirection)", executable] + arguments)
        child.environment = [
            "XDG_CACHE_HOME": FileManager.default.temporaryDirectory.appendingPathComponent(
                "faulty-output-caches"
            ).path
        ]
        let finished = try await child.finished(watchdog: Watchdog(limit: .seconds(120)))
        return Rig.ProcessResult(
            status: finished.signal.map { 128 + $0 } ?? finished.status, standardOutput: finished.output,
            standardError: finished.errors)
    }

    static let quick = ["--scenario", "offline", "--offline"]

    struct Case: Sendable, CustomTestStringConvertible {
        let product: String
        let arguments: [String]
        let redirection: String
        let status: Int32
        /// The one line on standard error (nil: nothing, it was closed or full).
        let message: String?

        var testDescription: String { "\(product) \(arguments.joined(separator: " ")) \(redirection)" }
    }

    static let cases: [Case] = [
        Case(
            product: "Lesson02AsyncPlaceholder", arguments: ["--json"] + quick, redirection: "> /dev/full", status: 1,
            message: "Lesson02AsyncPlaceholder: cannot write to standard output: No space left on device"),
        Case(
            product: "Lesson02AsyncPlaceholder", arguments: ["--plain"] + quick, redirection: ">&-", status: 1,
            message: "Lesson02AsyncPlaceholder: cannot write to standard output: it is closed"),
        Case(
            product: "Lesson08Dependencies", arguments: ["--json", "--part", "chain", "--speed", "20"],
            redirection: "> /dev/full", status: 1,
            message: "Lesson08Dependencies: cannot write to standard output: No space left on device"),
        Case(
            product: "lessons", arguments: [], redirection: "> /dev/full", status: 1,
            message: "lessons: cannot write to standard output: No space left on device"),
        // The workbench's own case is in WorkbenchPackageTests, which builds it.
        // `lessons run` becomes the step: the step finds standard output closed, as it was given.
        Case(
            product: "lessons", arguments: ["run", "10", "--json"] + quick, redirection: ">&-", status: 1,
            message: "Lesson10WebImage: cannot write to standard output: it is closed"),
        // Errors with nowhere to go: the status still says what happened.
        Case(
            product: "Lesson02AsyncPlaceholder", arguments: ["--bogus"], redirection: "2> /dev/full", status: 2,
            message: nil),
        Case(product: "lessons", arguments: ["frobnicate"], redirection: "2>&-", status: 2, message: nil),
        // Nothing to say, nothing failed: a closed standard error is no error.
        Case(
            product: "Lesson02AsyncPlaceholder", arguments: ["--json"] + quick, redirection: "2>&-", status: 0,
            message: nil),
    ]

    @Test(arguments: cases)
    func aWriteThatFailsIsAnErrorNeverACrash(_ test: Case) async throws {
        let run = try await Self.run(test.product, test.arguments, redirection: test.redirection)
        #expect(run.status == test.status, "\(run.standardError.prefix(300))")
        if let message = test.message {
            #expect(run.standardError == message + "\n")
        } else {
            #expect(run.standardError.isEmpty)
        }
    }

    // MARK: --timeline PATH

    /// `--timeline` on something that is not a regular file: refused before
    /// the run, with a sentence, and the thing left as it was.
    @Test func aTimelinePathThatIsNotAFileIsLeftAlone() async throws {
        let folder = try ScratchFolder.make("timeline")
        defer { ScratchFolder.remove(folder) }
        let target = folder.appendingPathComponent("real.svg")
        try "mine".write(to: target, atomically: true, encoding: .utf8)
        let link = folder.appendingPathComponent("link.svg")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let fifo = folder.appendingPathComponent("pipe.svg")
        try #require(mkfifo(fifo.path, 0o644) == 0)
        let device = folder.appendingPathComponent("null.svg")
        let madeDevice = mknod(device.path, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0  // /dev/null's numbers, 1 and 3

        var cases = [
            (link, "it is a symbolic link"), (fifo, "it is a FIFO (a named pipe), not a regular file"),
            (folder, "it is a folder; give a file name, such as \(folder.path)/timeline.svg"),
        ]
        if madeDevice { cases.append((device, "it is a device, not a regular file")) }
        for (path, problem) in cases {
            let run = try await Rig.runProduct(
                "Lesson02AsyncPlaceholder", ["--json", "--timeline", path.path] + Self.quick,
                timeLimit: .seconds(60))
            #expect(run.status == 1)
            #expect(
                run.standardError.hasPrefix(
                    "Lesson02AsyncPlaceholder: cannot write the timeline to \(path.path): \(problem)"),
                "\(run.standardError)")
            #expect(run.standardOutput.isEmpty, "refused before the run")
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == target.path)
        #expect(try String(contentsOf: target, encoding: .utf8) == "mine")
        var info = stat()
        #expect(lstat(fifo.path, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        if madeDevice { #expect(lstat(device.path, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR) }
    }

    /// A regular file is written over in place: the same file, its mode and its hard links kept.
    @Test func aTimelineFileIsWrittenOverInPlace() async throws {
        let folder = try ScratchFolder.make("timeline")
        defer { ScratchFolder.remove(folder) }
        let file = folder.appendingPathComponent("step2.svg")
        try "old".write(to: file, atomically: true, encoding: .utf8)
        try #require(chmod(file.path, 0o600) == 0)
        let link = folder.appendingPathComponent("also-step2.svg")
        try FileManager.default.linkItem(at: file, to: link)
        var before = stat()
        try #require(stat(file.path, &before) == 0)

        let run = try await Rig.runProduct(
            "Lesson02AsyncPlaceholder", ["--json", "--timeline", file.path] + Self.quick, timeLimit: .seconds(60))
        #expect(run.status == 0, "\(run.standardError)")
        var after = stat()
        try #require(stat(file.path, &after) == 0)
        #expect(after.st_ino == before.st_ino)
        #expect(after.st_mode & 0o777 == 0o600)
        #expect(after.st_nlink == 2)
        let picture = try String(contentsOf: link, encoding: .utf8)
        #expect(picture.hasPrefix("<svg") || picture.hasPrefix("<?xml"))
        #expect(picture.hasSuffix("</svg>\n"))
    }

    /// `--timeline` over an existing file on a full disk: the run says so,
    /// and the old picture is left whole (it was cut where the space ran out).
    /// A disk of 128 KB of its own, filled up: a tmpfs, which only root can mount.
    @Test(.enabled(if: geteuid() == 0, "mounting a small full disk takes root"))
    func aTimelineOnAFullDiskLeavesTheOldFileWhole() async throws {
        let disk = try ScratchFolder.make("full-disk")
        defer { ScratchFolder.remove(disk) }
        let mounted = try ChildProcess(command: ["mount", "-t", "tmpfs", "-o", "size=128k", "tmpfs", disk.path]).run()
        try #require(mounted.exited && mounted.status == 0, "cannot mount a tmpfs: \(mounted.errors)")
        defer { _ = try? ChildProcess(command: ["umount", disk.path]).run() }
        let file = disk.appendingPathComponent("step2.svg")
        let old = String(repeating: "the old timeline\n", count: 500)
        try old.write(to: file, atomically: false, encoding: .utf8)
        let fillerPath = disk.appendingPathComponent("filler").path
        try #require(FileManager.default.createFile(atPath: fillerPath, contents: nil))
        let filler = try #require(FileHandle(forWritingAtPath: fillerPath))
        // Until the disk is full.
        while (try? filler.write(contentsOf: Data(count: 4096))) != nil {}
        try? filler.close()

        let run = try await Rig.runProduct(
            "Lesson02AsyncPlaceholder", ["--json", "--timeline", file.path] + Self.quick, timeLimit: .seconds(60))
        #expect(run.status == 1)
        #expect(
            run.standardError.hasSuffix("cannot write the timeline to \(file.path): No space left on device\n"),
            "\(run.standardError)")
        #expect(try String(contentsOf: file, encoding: .utf8) == old)
    }

    // MARK: the Caches folder

    /// A folder `--clear-cache` cannot empty: as root, the immutable flag
    /// (permissions do not stop root); otherwise a read-only folder.
    static func makeUnremovable(_ folder: URL) -> Bool {
        if geteuid() != 0 { return chmod(folder.path, 0o555) == 0 }
        var chattr = ChildProcess(command: ["chattr", "+i", folder.path])
        chattr.errors = .discard
        return (try? chattr.run())?.status == 0
    }

    static func makeRemovable(_ folder: URL) {
        if geteuid() != 0 {
            chmod(folder.path, 0o755)
        } else {
            _ = try? ChildProcess(command: ["chattr", "-i", folder.path]).run()
        }
    }

    @Test func aCacheThatCannotBeClearedIsSaidAndNoRunIsPlayed() async throws {
        let caches = try ScratchFolder.make("clear-cache")
        let folder = caches.appendingPathComponent("OperationLessons/Lesson06SandboxCache")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("old icon".utf8).write(to: folder.appendingPathComponent("0123456789abcdef.ppm"))
        try #require(Self.makeUnremovable(folder), "cannot make a folder that will not empty here")
        defer {
            Self.makeRemovable(folder)
            ScratchFolder.remove(caches)
        }
        let run = try await Rig.runProduct(
            "Lesson06SandboxCache", ["--json", "--clear-cache"] + Self.quick,
            environment: ["XDG_CACHE_HOME": caches.path],
            timeLimit: .seconds(60))
        #expect(run.status == 1)
        let reason = geteuid() == 0 ? "Operation not permitted" : "Permission denied"
        #expect(
            run.standardError
                == "Lesson06SandboxCache: --clear-cache: cannot empty \(folder.path): \(reason) (1 file still there)\n")
        #expect(run.standardOutput.isEmpty, "no run that would call itself a cold start")
    }

    /// What a run killed in the middle of an atomic write leaves: an old one is
    /// removed at the next launch, a young one (maybe another run's, writing
    /// now) is left, and neither counts as a cache file.
    @Test func unfinishedWritesAreNeverCountedAndOldOnesAreRemoved() async throws {
        let caches = try ScratchFolder.make("unfinished")
        defer { ScratchFolder.remove(caches) }
        let folder = caches.appendingPathComponent("OperationLessons/Lesson06SandboxCache")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let icon = AppCatalog.bundled().entries[0].icon
        try IconArt.ppm(for: icon).write(to: folder.appendingPathComponent(Reliability.cacheFileName(for: icon)))
        let old = folder.appendingPathComponent(".dat.nosyncAB12.x7QpRt")
        let young = folder.appendingPathComponent(".dat.nosyncCD34.m2ZkWq")
        try Data("half an icon".utf8).write(to: old)
        try Data("half an icon".utf8).write(to: young)
        let twoHoursAgo = Date().addingTimeInterval(-7200)
        try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: old.path)

        let run = try await Rig.runProduct(
            "Lesson06SandboxCache", ["--json"] + Self.quick, environment: ["XDG_CACHE_HOME": caches.path],
            timeLimit: .seconds(60))
        #expect(run.status == 0, "\(run.standardError)")
        let report = try JSONDecoder().decode(Report.self, from: Data(run.standardOutput.utf8))
        #expect(report.diskCacheFiles == 1)
        #expect(!FileManager.default.fileExists(atPath: old.path))
        #expect(FileManager.default.fileExists(atPath: young.path))
    }
}
