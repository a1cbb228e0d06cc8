import CourseSite
import Foundation
import LessonKit

/// `lessons site`: the course as DocC tutorials, built from the lesson texts and the steps' own files with the
/// toolchain's `docc`, and served on this machine's loopback when asked.
enum SiteCommand: LessonsCommand {
    static let name = "site"
    static let abstract = "the course as DocC tutorials on the web: built with docc (--out DIR), --serve to read it"
    struct Options {
        var out: String?
        var serve = false
        var port: Int?
    }

    static var flags: FlagTable<Options> {
        FlagTable(
            Options(),
            flags: [
                .value("--out", .text("DIR"), \.out, help: "where to build the site (default: \(defaultFolder))"),
                .switch(
                    "--serve", \.serve,
                    help: "then serve it on 127.0.0.1 and print the address, until Ctrl-C (needs python3)"),
                .value(
                    "--port", .wholeNumber("N", in: 1...65535), \.port,
                    help: "the port to serve on (default: a free one)"),
            ])
    }

    static let defaultFolder = ".operationlessons/site in the package folder"

    static let about = """
        The catalog docc reads is written to .operationlessons/site-catalog. Run `swift build` first: WebImage's \
        API pages come from its build.
        """

    static func run(_ options: Options) async throws -> Int32 {
        let workspace = try Workspace.find(root: nil)
        let out = options.out.map { URL(fileURLWithPath: $0) } ?? workspace.stateFolder.appendingPathComponent("site")
        let python = SiteBuilder.onPath("python3")
        if options.serve, python == nil {
            printError("lessons site: --serve needs python3 on the PATH (its http.server serves the folder); the site can still be built without --serve")
            return 1
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let builder = SiteBuilder(root: workspace.root, buildFolder: executable.deletingLastPathComponent())
        let started = ContinuousClock.now
        let count: (tutorials: Int, unplaced: [String])
        do {
            count = try builder.build(into: out, scratch: workspace.stateFolder.appendingPathComponent("site-catalog"))
        } catch let failure as SiteBuilder.Failure {
            printError("lessons site: \(failure)")
            return 1
        }
        let seconds = (ContinuousClock.now - started).components.seconds
        for part in count.unplaced { printError("lessons site: shown without code: \(part)") }
        say("Built \(count.tutorials) tutorials, a table of contents and WebImage's API pages into \(workspace.relative(out))/ in \(seconds) s.")
        guard options.serve, let python else { return 0 }
        let port = options.port ?? 8000
        var server = ChildProcess(
            python, ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", out.path])
        server.output = .discard
        server.errors = .collect
        let running = try server.launch()
        say("Serving the course at http://127.0.0.1:\(port)/ (Ctrl-C stops it).")
        let finished = await running.finished()
        printError("lessons site: the server stopped: \(finished.errors.trimmingCharacters(in: .whitespacesAndNewlines).components(separatedBy: "\n").last ?? "")")
        return 1
    }
}
