import Foundation
import LessonKit

/// `lessons play N [flags]`: step N's table on the live screen, driven by the
/// learner's keys (or a session's, replayed with `--script`): the step's own
/// executable with `--play`, in this process's place, as `lessons run` does.
enum PlayCommand: LessonsCommand {
    static let name = "play"
    static let abstract = "drive step N's table yourself, keys and all, then see what was measured"
    struct Options {
        /// Set by the table's required `N`.
        var entry: LessonEntry?
        var script: String?
        var record: String?
        /// The step's flags, handed on as they are.
        var flags: [String] = []
    }

    static var flags: FlagTable<Options> {
        FlagTable(
            Options(),
            words: [
                .required("N", help: "the step (\(stepNumbers))", missing: "play needs a step number (\(stepNumbers))")
                {
                    options, word throws(UsageError) in
                    guard let number = Int(word), let entry = steps.first(where: { $0.number == number }) else {
                        throw UsageError("'\(word)' is not a step with a table to play; the steps are \(stepNumbers)")
                    }
                    options.entry = entry
                }
            ],
            flags: [
                .value(
                    "--script", .text("FILE"), \.script,
                    help: "replay a session's keys from FILE: a line per key, its story second then its name (2.5 "
                        + "down); the keys: \(PlayKey.names)"),
                .value("--record", .text("FILE"), \.record, help: "write the session's keys to FILE, for --script"),
            ],
            handsOn: ("flags", \.flags))
    }

    static var about: String {
        """
        Any other flag is the step's (lessons run N --help). On the screen: ↑/↓ scroll a row, PgUp/PgDn a screen \
        (a held key flicks), m a memory warning, o offline/online, r relaunch (a new process, \
        on the same disk cache), s slow the visible rows, ? the keys, q quit and print the report. The story clock \
        runs in real time (--speed X: X times faster).
        """
    }

    /// The steps whose table can be played: those with a table scenario.
    static var steps: [LessonEntry] { LessonCatalog.all.filter(\.showsImageList) }

    static var stepNumbers: String { steps.map { String($0.number) }.joined(separator: ", ") }

    static func run(_ options: Options) throws -> Int32 {
        guard let entry = options.entry else { throw UsageError("play needs a step number (\(stepNumbers))") }
        let session =
            (options.script.map { ["--script", $0] } ?? []) + (options.record.map { ["--record", $0] } ?? [])
        return try RunCommand.play(
            entry, flags: ["--play"] + session + options.flags, workspace: try? Workspace.find(root: nil))
    }
}
