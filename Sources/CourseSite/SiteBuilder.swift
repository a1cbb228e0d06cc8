import Foundation
import LessonKit

/// Builds the course's web site: the catalog written to a folder, WebImage's symbol graph extracted from the
/// package's own build, and the toolchain's `docc` run over both, with warnings as errors (DocC prints nothing
/// when it succeeds, so a warning is the only sign of a broken page). The site is static: any file server serves
/// it, and its root leads to the table of contents.
public struct SiteBuilder: Sendable {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let description: String
    }

    /// The package folder.
    public let root: URL
    /// The build folder whose `Modules/` hold WebImage (the one `lessons` itself was built in).
    public let buildFolder: URL

    public init(root: URL, buildFolder: URL) {
        self.root = root
        self.buildFolder = buildFolder
    }

    /// The path of `program` on the PATH, or nil.
    public static func onPath(_ program: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent(program) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Writes the catalog into `scratch/OperationLessons.docc` and builds the site into `out`, which is replaced.
    /// Returns the tutorials' count, and a sentence for each part of a fix that no line of its diff shows.
    @discardableResult
    public func build(into out: URL, scratch: URL) throws -> (tutorials: Int, unplaced: [String]) {
        guard let docc = Self.onPath("docc") else {
            throw Failure(description: "there is no docc on the PATH; it comes with the Swift toolchain (swift.org), whose usr/bin must be on the PATH")
        }
        let catalog = try CourseCatalog(root: root)
        let bundle = scratch.appendingPathComponent("OperationLessons.docc")
        let manager = FileManager.default
        try? manager.removeItem(at: bundle)
        for (path, data) in try catalog.files() {
            let file = bundle.appendingPathComponent(path)
            try manager.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: file)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(SiteExpectations(catalog)).write(to: scratch.appendingPathComponent("site-check.json"))
        let symbols = scratch.appendingPathComponent("symbol-graphs")
        try? manager.removeItem(at: symbols)
        try manager.createDirectory(at: symbols, withIntermediateDirectories: true)
        try extractSymbols(of: "WebImage", into: symbols, next: docc)
        try? manager.removeItem(at: out)
        var convert = ChildProcess(
            docc,
            [
                "convert", bundle.path, "--output-path", out.path, "--fallback-display-name", "OperationLessons",
                "--fallback-bundle-identifier", "org.operationlessons.course", "--additional-symbol-graph-dir",
                symbols.path, "--warnings-as-errors",
            ])
        convert.errors = .intoOutput
        let converted = try convert.run()
        let said = converted.output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard converted.exited, converted.status == 0, said.isEmpty else {
            throw Failure(description: "docc convert \(bundle.path) failed:\n\(said)")
        }
        // The site's root is the single-page app's shell, which finds no page at `/`: send the reader to the
        // table of contents.
        try Data(
            """
            <!doctype html><meta charset="utf-8"><title>OperationLessons</title>
            <meta http-equiv="refresh" content="0; url=tutorials/course/">
            <a href="tutorials/course/">The course</a>

            """.utf8
        ).write(to: out.appendingPathComponent("index.html"))
        let unplaced = catalog.pages.flatMap { page in
            page.walk.unplaced.map {
                "step \(page.entry.number), part \($0.number) (\($0.title)): no added line holds \($0.anchors.isEmpty ? "a code span of it" : $0.anchors.map { "`\($0)`" }.joined(separator: " or "))"
            }
        }
        return (catalog.pages.count, unplaced)
    }

    /// `swift-symbolgraph-extract` over the module as the package's build left it: no second build.
    func extractSymbols(of module: String, into folder: URL, next docc: URL) throws {
        let tool = docc.deletingLastPathComponent().appendingPathComponent("swift-symbolgraph-extract")
        let modules = buildFolder.appendingPathComponent("Modules")
        guard FileManager.default.fileExists(atPath: modules.appendingPathComponent(module + ".swiftmodule").path)
        else {
            throw Failure(description: "\(module) is not built in \(buildFolder.path); run swift build first")
        }
        let arguments =
            [
                "-module-name", module, "-target", Self.targetTriple, "-output-dir", folder.path,
                "-minimum-access-level", "public",
            ] + Self.importArguments(buildFolder)
        var extract = ChildProcess(tool, arguments)
        extract.errors = .intoOutput
        let finished = try extract.run()
        guard finished.exited, finished.status == 0 else {
            throw Failure(description: "swift-symbolgraph-extract \(module) failed:\n\(finished.output)")
        }
    }

    /// What a compiler needs to import the package's modules from `buildFolder`: its `Modules/`, and the module
    /// maps of its C targets.
    public static func importArguments(_ buildFolder: URL) -> [String] {
        let maps = ((try? FileManager.default.contentsOfDirectory(atPath: buildFolder.path)) ?? []).sorted()
            .map { buildFolder.appendingPathComponent($0).appendingPathComponent("module.modulemap") }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        return ["-I", buildFolder.appendingPathComponent("Modules").path]
            + maps.flatMap { ["-Xcc", "-fmodule-map-file=" + $0.path] }
    }

    static var targetTriple: String {
        #if arch(arm64)
            "aarch64-unknown-linux-gnu"
        #else
            "x86_64-unknown-linux-gnu"
        #endif
    }
}
