import Foundation

/// What each tutorial page must show a reader, written beside the catalog for the browser check
/// (`.ci/site-check.py`): every step's first words, the file its code pane shows and the lines it highlights, the
/// timeline picture, and each question with its right answer. The check compares the page with these, so a page
/// that renders but shows the wrong thing fails.
public struct SiteExpectations: Codable, Sendable {
    public struct Step: Codable, Sendable {
        public let text: String
        public let code: String?
        public let highlighted: [Int]
        /// The highlighted lines' text: DocC finds the added lines with a diff of its own, which may take an
        /// identical line (a `}`, a blank) a few lines away from ours, and that reads the same.
        public let highlightedText: [String]
    }

    public struct Question: Codable, Sendable {
        public let question: String
        public let choices: [String]
        public let correct: Int
    }

    public struct Page: Codable, Sendable {
        public let path: String
        public let title: String
        public let timeline: String
        public let steps: [Step]
        public let quiz: [Question]
    }

    public let pages: [Page]

    public init(_ catalog: CourseCatalog) {
        let titles = Dictionary(uniqueKeysWithValues: catalog.pages.map { ($0.pageName, $0.document.title) })
        pages = catalog.pages.enumerated().map { index, page in
            let next = index + 1 < catalog.pages.count ? catalog.pages[index + 1] : nil
            return Page(
                path: "tutorials/operationlessons/\(page.pageName.lowercased())/", title: page.document.title,
                timeline: page.timeline,
                steps: page.steps(next: next).map { step in
                    Step(
                        text: Self.plain(step.text, titles: titles), code: step.code, highlighted: step.highlighted,
                        highlightedText: step.highlightedText)
                },
                quiz: page.quiz.map { question in
                    Question(
                        question: Self.plain(question.question, titles: titles),
                        choices: question.choices.map { Self.plain($0.answer, titles: titles) },
                        correct: question.choices.firstIndex { $0.isCorrect } ?? -1)
                })
        }
    }

    /// The words a reader sees of a step's Markdown: no emphasis marks, code spans as their text, links to other
    /// tutorials as those tutorials' titles.
    static func plain(_ markdown: String, titles: [String: String]) -> String {
        var text = markdown
        for (name, title) in titles { text = text.replacingOccurrences(of: "<doc:\(name)>", with: title) }
        text = text.replacingOccurrences(of: "**", with: "").replacingOccurrences(of: "`", with: "")
        return text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}
