/// A lesson's "Check yourself" questions, written once in its Markdown as a numbered list a reader on GitHub can
/// follow, each answer a task-list item whose box is ticked for the right one, its justification after a dash:
///
///     1. Offline, why does step 4 ask for the same icons again and again?
///        - [ ] Its queue has no limit. — No: step 5 … .
///        - [x] Each failed download reloads its row. — Yes: … .
public struct QuizQuestion: Sendable, Equatable {
    public struct Choice: Sendable, Equatable {
        public let answer: String
        public let isCorrect: Bool
        /// Why the answer is right or wrong, shown when it is chosen.
        public let justification: String
    }

    public let question: String
    public let choices: [Choice]

    /// The questions of `document`'s "Check yourself" section (none if it has none).
    public static func questions(in document: LessonDocument) -> [QuizQuestion] {
        var questions: [QuizQuestion] = []
        for case .list(true, let items) in document.section("Check yourself") ?? [] {
            for item in items {
                var question: [String] = []
                var choices: [(Bool, [String])] = []
                for line in item.components(separatedBy: "\n") {
                    if line.hasPrefix("- [ ] ") || line.hasPrefix("- [x] ") {
                        choices.append((line.hasPrefix("- [x]"), [String(line.dropFirst(6))]))
                    } else if choices.isEmpty {
                        question.append(line)
                    } else {
                        choices[choices.count - 1].1.append(line)
                    }
                }
                questions.append(
                    QuizQuestion(
                        question: question.joined(separator: " "),
                        choices: choices.map { correct, lines in
                            let text = lines.joined(separator: " ")
                            let parts = text.components(separatedBy: " — ")
                            return Choice(
                                answer: parts[0], isCorrect: correct,
                                justification: parts.dropFirst().joined(separator: " — "))
                        }))
            }
        }
        return questions
    }
}
