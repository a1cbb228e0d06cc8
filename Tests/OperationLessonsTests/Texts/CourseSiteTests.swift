import CourseSite
import Foundation
import LessonKit
import Testing

/// The course's web site, checked without a browser: the catalog `lessons site` hands to `docc` has a tutorial
/// per step, every file its pages name, every code step highlighting the part it names, every intermediate file
/// compiling, and every quiz with one right answer. (The browser's side is `.ci/site-check.py`, in `.ci/run`.)
@Suite struct CourseSiteTests {
    static let root = Rig.packageRoot
    static let catalog = Result { try CourseCatalog(root: root) }

    @Test func everyStepHasATutorialInTheTableOfContents() throws {
        let catalog = try Self.catalog.get()
        let files = try catalog.files()
        #expect(catalog.pages.map(\.entry.number) == LessonCatalog.all.map(\.number))
        let contents = String(decoding: try #require(files["Course.tutorial"]), as: UTF8.self)
        for page in catalog.pages {
            #expect(files["\(page.pageName).tutorial"] != nil, "no tutorial for step \(page.entry.number)")
            #expect(contents.contains("@TutorialReference(tutorial: \"doc:\(page.pageName)\")"))
            #expect(files["Resources/\(page.timeline)"] != nil, "no picture \(page.timeline)")
        }
        // Every chapter of the manifest, the steps in order, each once.
        #expect(contents.components(separatedBy: "@Chapter(").count - 1 == CourseCatalog.chapters.count)
        #expect(CourseCatalog.chapters.flatMap { Array($0.steps) } == LessonCatalog.all.map(\.number))
        #expect(files["OperationLessons.md"].map { String(decoding: $0, as: UTF8.self).contains("@TechnologyRoot") } == true)
    }

    /// Every `file:`, `previousFile:` and `source:` a page names is in the catalog.
    @Test func everyFileAPageNamesExists() throws {
        let files = try Self.catalog.get().files()
        let pattern = #/(file|previousFile|source): "([^"]+)"/#
        var named = 0
        for (path, data) in files where path.hasSuffix(".tutorial") {
            for match in String(decoding: data, as: UTF8.self).matches(of: pattern) {
                let name = String(match.output.2)
                let folder = match.output.1 == "source" ? "Resources/" : "Resources/code/"
                #expect(files[folder + name] != nil, "\(path) names \(name), which is not in the catalog")
                named += 1
            }
        }
        #expect(named > 100)
    }

    /// Each code step highlights what its part adds (the lines the diff of the step's two files adds, as text), its
    /// anchor among them, and the walk ends on the step's real files: every part of every fix is shown.
    @Test func everyHighlightIsThePartItNames() throws {
        for page in try Self.catalog.get().pages {
            #expect(page.walk.unplaced.isEmpty, "step \(page.entry.number): no code for \(page.walk.unplaced.map(\.title))")
            for step in page.walk.steps {
                let added = lineChanges(from: step.previousLines, to: step.lines).flatMap { Array($0.new) }
                    .map { step.lines[$0] }
                let highlighted = step.highlighted.map { step.lines[$0 - 1] }
                #expect(
                    added.sorted() == highlighted.sorted(),
                    "step \(page.entry.number), part \(step.part.number), \(step.file.name): highlights other lines")
                #expect(!highlighted.isEmpty, "step \(page.entry.number), part \(step.part.number): nothing highlighted")
                if let anchor = step.anchor {
                    let wanted = anchor.components(separatedBy: "…")[0].split(separator: " ").joined(separator: " ")
                    #expect(
                        highlighted.contains { $0.split(separator: " ").joined(separator: " ").contains(wanted) },
                        "step \(page.entry.number), part \(step.part.number): `\(anchor)` is not highlighted")
                }
            }
            for file in page.walk.files {
                let last = try #require(page.walk.steps.last { $0.file == file }, "\(file.after) is never shown")
                let real = try String(contentsOf: Self.root.appendingPathComponent(file.after), encoding: .utf8)
                #expect(last.lines.map { $0 + "\n" }.joined() == real, "the walk of \(file.after) does not end on it")
            }
        }
    }

    /// The walk of `A/F.swift` → `B/F.swift` in a scratch folder, with these numbered parts as "The fix" lists them.
    static func walk(from old: String, to new: String, parts: [String]) throws -> FixWalk {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("walk-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, text) in [("A", old), ("B", new)] {
            try FileManager.default.createDirectory(
                at: folder.appendingPathComponent(name), withIntermediateDirectories: true)
            try text.write(to: folder.appendingPathComponent(name + "/F.swift"), atomically: true, encoding: .utf8)
        }
        let list = parts.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: "\n")
        let text = "# Step 2 · Test\n\n## The fix\n\n```sh\ndiff -u A/F.swift B/F.swift\n```\n\n" + list + "\n"
        return try FixWalk(document: LessonDocument(text: text), root: folder, fallback: nil)
    }

    /// A walk fed a known diff: parts claim their anchors' lines (a brace's whole body when it is new), and the
    /// file between them is the old one with the earlier parts applied.
    @Test func aWalkAppliesThePartsInOrder() throws {
        let walk = try Self.walk(
            from: "func f() {\n    one()\n}\n",
            to: "func f() {\n    zero()\n    one()\n    queue.add {\n        two()\n    }\n}\n",
            parts: ["**First** `zero()`.", "**Second**, the queue: `queue.add { … }`."])
        #expect(walk.unplaced.isEmpty)
        #expect(walk.steps.map(\.highlighted) == [[2], [4, 5, 6]])
        #expect(walk.steps[0].lines == ["func f() {", "    zero()", "    one()", "}"])
        #expect(walk.steps[1].previousLines == walk.steps[0].lines)
    }

    /// A comment the diff adds comes with the code below it: above a line a later part claims (inside or outside
    /// a brace), it is that part's, not the part of the line before it.
    @Test func aNewCommentComesWithTheCodeBelowIt() throws {
        let walk = try Self.walk(
            from: "func f() {\n    one()\n}\n\nfunc g() {\n    old()\n}\n",
            to: "func f() {\n    zero()\n    // Then two.\n    two()\n    one()\n}\n\n"
                + "// g calls three.\nfunc g() {\n    three()\n}\n",
            parts: ["**First** `zero()`.", "**Second** `two()`.", "**Third** `three()`."])
        #expect(walk.steps.map(\.highlighted) == [[2], [3, 4], [8, 10]])
    }

    /// DocC's pitfalls, on every page: a `@Code` with no `previousFile:` highlights nothing, and a file whose
    /// `name:` changes between steps stops being highlighted; so every one has a previous file, and its name is
    /// the file's own (its resource's, less the `05-2-` that orders it). A step that takes code out says so,
    /// since deleted lines simply vanish from the pane.
    @Test func everyCodeStepShowsWhatChanged() throws {
        let catalog = try Self.catalog.get()
        let files = try catalog.files()
        let pattern = #/@Code\(name: "([^"]+)", file: "([^"]+)"(, previousFile: "([^"]+)")?\)/#
        var codes = 0
        for (path, data) in files where path.hasSuffix(".tutorial") {
            for match in String(decoding: data, as: UTF8.self).matches(of: pattern) {
                let (name, file) = (String(match.output.1), String(match.output.2))
                #expect(match.output.4 != nil, "\(path): \(file) has no previousFile")
                #expect(file.hasSuffix("-" + name), "\(path): \(file) is shown as \(name)")
                codes += 1
            }
        }
        #expect(codes > 40)
        var saying = 0
        for (index, page) in catalog.pages.enumerated() {
            let next = index + 1 < catalog.pages.count ? catalog.pages[index + 1] : nil
            let shown = page.steps(next: next).filter { $0.code?.contains("-bug-") == false }
            #expect(shown.count == page.walk.steps.count)
            for (text, step) in zip(shown.map(\.text), page.walk.steps) {
                let gone = lineChanges(from: step.previousLines, to: step.lines).flatMap { step.previousLines[$0.old] }
                    .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.hasPrefix("//") }
                guard !gone.isEmpty else { continue }
                let said = "It takes out or rewrites " + (gone.count == 1 ? "`" : "\(gone.count) lines of code, from `")
                let quoted = text.components(separatedBy: said).dropFirst().first?.components(separatedBy: "`").first
                #expect(
                    quoted.map { quoted in
                        gone.contains { $0.hasPrefix(quoted.hasSuffix(" …") ? String(quoted.dropLast(2)) : quoted) }
                    } == true,
                    "step \(page.entry.number), part \(step.part.number): \(gone.count) lines go unsaid")
                saying += 1
            }
        }
        #expect(saying > 10)
    }

    @Test func everyQuizHasOneRightAnswerPerQuestion() throws {
        for page in try Self.catalog.get().pages {
            #expect((2...4).contains(page.quiz.count), "step \(page.entry.number): \(page.quiz.count) questions")
            for question in page.quiz {
                #expect(question.choices.filter(\.isCorrect).count == 1, "\(question.question): one right answer")
                #expect(question.choices.count >= 2, "\(question.question)")
                for choice in question.choices {
                    // DocC never shows a justification's `reaction:`, so its words say right or wrong themselves.
                    #expect(
                        choice.justification.hasPrefix(choice.isCorrect ? "Right" : "Not quite"),
                        "\(question.question) / \(choice.answer): \(choice.justification)")
                }
            }
        }
    }

    /// Every intermediate file a code step shows compiles, with the rest of its step's files as they are at that
    /// point (typechecked against the package's own build, in the step's language mode): a part never uses what a
    /// later part adds, and no two parts share a change.
    @Test(.webCourseCompileInCI) func everyIntermediateFileCompiles() async throws {
        let arguments = SiteBuilder.importArguments(Rig.productsDirectory)
        var checked = 0
        for page in try Self.catalog.get().pages {
            var now: [String: [String]] = [:]
            for file in page.walk.files {
                if let before = file.before {
                    now[file.after] = try String(contentsOf: Self.root.appendingPathComponent(before), encoding: .utf8)
                        .components(separatedBy: "\n")
                }
            }
            for step in page.walk.steps {
                now[step.file.after] = step.lines
                let folder = (step.file.after as NSString).deletingLastPathComponent
                guard folder.hasPrefix("Sources/Lesson") else { continue }  // a library's new file is whole
                let before = page.walk.files.compactMap(\.before).first.map { ($0 as NSString).deletingLastPathComponent }
                let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("step-\(UUID().uuidString)")
                try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: scratch) }
                var sources: [String] = []
                for name in try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent(folder).path)
                where name.hasSuffix(".swift") && name != "main.swift" {
                    let path = folder + "/" + name
                    let lines: [String]
                    if let shown = now[path] {
                        lines = shown
                    } else if page.walk.files.contains(where: { $0.after == path }) {
                        continue  // a new file, not shown yet
                    } else if let before, FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(before + "/" + name).path) {
                        lines = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
                            .components(separatedBy: "\n")
                    } else {
                        continue  // the step's variants, written against its finished code
                    }
                    let file = scratch.appendingPathComponent(name)
                    try lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
                    sources.append(file.path)
                }
                // The step before's helpers the step drops (step 7's `DownloadOperation`, which step 10's walk still
                // uses until its last part); its view controllers are variants, written against its finished code.
                if let before, before != folder {
                    let old = try FileManager.default.contentsOfDirectory(atPath: Self.root.appendingPathComponent(before).path)
                    for name in old where name.hasSuffix(".swift") && name != "main.swift"
                        && !name.hasSuffix("ViewController.swift")
                        && !FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(folder + "/" + name).path)
                    {
                        sources.append(Self.root.appendingPathComponent(before + "/" + name).path)
                    }
                }
                let mode = page.entry.target == "Lesson11SwiftConcurrency" ? "6" : "5"
                var compile = ChildProcess(
                    command: ["swiftc", "-typecheck", "-parse-as-library", "-swift-version", mode, "-module-name", "Step"]
                        + arguments + sources)
                compile.errors = .intoOutput
                let compiled = try await compile.finished()
                checked += 1
                let first = compiled.output.components(separatedBy: "\n").first { $0.contains("error:") } ?? compiled.output
                #expect(
                    compiled.status == 0,
                    "does not compile: step \(page.entry.number), part \(step.part.number) (\(step.file.name)): \(first)")
            }
        }
        #expect(checked > 30)
    }
}
