import Foundation
import LessonKit

/// docs/cli.md's reference of every command's arguments, made from the
/// commands' own tables: what `--help` prints, as Markdown. `lessons docs`
/// says when it is stale; `--write` writes it again.
enum CommandReference {
    static let file = "docs/cli.md"
    static let begin = "<!-- every command's arguments: written by lessons docs --write from the commands -->"
    static let end = "<!-- end of every command's arguments -->"

    static var markdown: String {
        Lessons.commands.map { $0.reference }.joined(separator: "\n\n")
    }

    /// `text` with its reference written again; nil when it has none.
    static func regenerate(_ text: String) -> String? {
        guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex)
        else { return nil }
        return text[..<start.upperBound] + "\n\n" + markdown + "\n\n" + text[stop.lowerBound...]
    }
}

extension LessonsCommand {
    /// This command's part of the reference.
    static var reference: String { flags.markdown(program: "lessons \(name)", abstract: abstract) }
}
