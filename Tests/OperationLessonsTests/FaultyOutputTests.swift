import Foundation
import LessonKit
import SlowNetwork
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Where a run writes, and what it finds there: a full or closed stream, a
/// timeline path that is not a plain file. A failure is said and shows in
/// the exit status; nothing the learner has is replaced by mistake.
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
            product: "Workbench", arguments: ["--help"], redirection: ">&-", status: 1,
            message: "Workbench: cannot write to standard output: it is closed"),
        // Errors with nowhere to go: the status still says what happened.
        Case(
            product: "Lesson02AsyncPlaceholder", arguments: ["--bogus"], redirection: "2> /dev/full", status: 2,
            message: nil),
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
}
