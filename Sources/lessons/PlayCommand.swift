import Foundation
import LessonKit

/// `lessons play N [flags]`: step N's table on the live screen, driven by the
/// learner's keys (or a session's, replayed with `--script`): the step's own
/// executable with `--play`, in this process's place, as `lessons run` does.
enum PlayCommand: LessonsCommand {
    static let name = "play"
    static let abstract = "drive step N's table yourself, keys and all, then see what was measured"
    static var usage: String {
        """
        usage: lessons play N [--script FILE] [--record FILE] [flags]
          N                the step (\(stepNumbers))
          --script FILE    replay a session's keys from FILE: a line per key, its story second then its name \
        (2.5 down); the keys: \(PlayKey.names)
          --record FILE    write the session's keys to FILE, for --script
        Any other flag is the step's (lessons run N --help). On the screen: ↑/↓ scroll a row, PgUp/PgDn a screen \
        (a held key flicks), m a memory warning, o offline/online, r relaunch (a new process, \
        on the same disk cache), s slow the visible rows, ? the keys, q quit and print the report. The story clock \
        runs in real time (--speed X: X times faster).
        """
    }

    /// The steps whose table can be played: those with a table scenario.
    static var steps: [LessonEntry] { LessonCatalog.all.filter(\.showsImageList) }

    static var stepNumbers: String { steps.map { String($0.number) }.joined(separator: ", ") }

    static func parse(_ arguments: [String]) throws(UsageError) -> (entry: LessonEntry, flags: [String])? {
        guard let first = arguments.first, !["--help", "-h"].contains(first) else {
            if arguments.isEmpty { throw UsageError("play needs a step number (\(stepNumbers))") }
            return nil
        }
        guard let number = Int(first), let entry = steps.first(where: { $0.number == number }) else {
            throw UsageError("'\(first)' is not a step with a table to play; the steps are \(stepNumbers)")
        }
        return (entry, ["--play"] + arguments.dropFirst())
    }

    static func run(_ options: (entry: LessonEntry, flags: [String])) throws -> Int32 {
        try RunCommand.play(options.entry, flags: options.flags, workspace: try? Workspace.find(root: nil))
    }
}
