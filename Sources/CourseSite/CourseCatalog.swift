import Foundation
import LessonKit

/// The whole DocC catalog of the course: a root page, a table of contents that mirrors `Lessons/README.md`, one
/// tutorial per step, and their resources (the committed timeline pictures, each code step's file). Everything
/// in it is read from the package: the texts, the steps' files, the pictures.
public struct CourseCatalog: Sendable {
    /// The chapters of the table of contents, by the steps they hold, in the manifest's order.
    public static let chapters: [(name: String, steps: [Int])] = LessonCatalog.all.reduce(into: []) { chapters, step in
        if chapters.last?.name == step.chapter {
            chapters[chapters.count - 1].steps.append(step.number)
        } else {
            chapters.append((step.chapter, [step.number]))
        }
    }

    public let pages: [TutorialPage]
    let root: URL

    public init(root: URL) throws {
        self.root = root
        pages = try LessonCatalog.all.map { try TutorialPage(entry: $0, root: root) }
    }

    /// The steps that write a library of the course, each with it.
    var libraryPages: [(page: TutorialPage, library: LessonEntry.Library)] {
        pages.compactMap { page in page.entry.builds.map { (page, $0) } }
    }

    /// The catalog's files, by path inside `OperationLessons.docc`.
    public func files() throws -> [String: Data] {
        var files: [String: Data] = [:]
        let readmeText = try String(contentsOf: root.appendingPathComponent("Lessons/README.md"), encoding: .utf8)
        let readme = LessonDocument(text: readmeText)
        let about = readme.opening.compactMap(Markdown.docc).joined(separator: "\n\n")
        files["OperationLessons.md"] = Data(
            """
            # OperationLessons

            @Metadata {
                @TechnologyRoot
            }

            \(about)

            Read it on the web: <doc:Course>.\(libraryPages.map { " The library step \($0.page.entry.number) builds is documented page by page: ``\($0.library.library)``." }.joined())

            """.utf8)
        // A library's own page, above its symbols: where it comes from, and the tutorial that builds it.
        for (page, library) in libraryPages {
            let about = page.document.opening.compactMap(Markdown.docc).joined(separator: "\n\n")
            files["\(library.library).md"] = Data(
                """
                # ``\(library.library)``

                \(library.about)

                \(about)

                Built step by step in <doc:\(page.pageName)>.

                """.utf8)
        }
        files["Course.tutorial"] = Data(tableOfContents(readme: readme, rows: Self.stepRows(readmeText)).utf8)
        for (index, page) in pages.enumerated() {
            let next = index + 1 < pages.count ? pages[index + 1] : nil
            files["\(page.pageName).tutorial"] = Data(page.text(next: next).utf8)
            for file in page.codeFiles {
                files["Resources/code/\(file.name)"] = Data(file.lines.map { $0 + "\n" }.joined().utf8)
            }
            files["Resources/\(page.timeline)"] = try Data(
                contentsOf: root.appendingPathComponent("docs/timelines/" + page.timeline))
        }
        return files
    }

    /// The table of contents: the README's opening as its intro, a chapter per group of steps, each with the
    /// problems its steps fix as the README's table gives them.
    func tableOfContents(readme: LessonDocument, rows: [Int: String]) -> String {
        var out = DirectiveWriter()
        out.open("@Tutorials(name: \"OperationLessons\")")
        out.open("@Intro(title: \(quoted(readme.title.isEmpty ? "The lessons" : readme.title)))")
        if case .paragraph(let first)? = readme.opening.first { out.text(Markdown.inline(first)) }
        out.close()
        for chapter in Self.chapters {
            let members = pages.filter { chapter.steps.contains($0.entry.number) }
            out.open("@Chapter(name: \(quoted(chapter.name)))")
            out.text(
                members.map { page in
                    "Step \(page.entry.number): " + Markdown.inline(rows[page.entry.number] ?? page.entry.fixes) + "."
                }.joined(separator: " "))
            if let first = members.first {
                out.line("@Image(source: \(quoted(first.timeline)), alt: \(quoted("The timeline of step \(first.entry.number)")))")
            }
            for page in members { out.line("@TutorialReference(tutorial: \"doc:\(page.pageName)\")") }
            out.close()
        }
        out.close()
        return out.text
    }

    /// The README's table of steps: each step's "the problem it fixes" cell, by number.
    static func stepRows(_ readme: String) -> [Int: String] {
        var rows: [Int: String] = [:]
        for line in readme.components(separatedBy: "\n") where line.hasPrefix("| ") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.count >= 3, let number = Int(cells[0]) { rows[number] = cells[2] }
        }
        return rows
    }
}
