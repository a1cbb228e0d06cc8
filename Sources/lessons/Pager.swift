import Foundation
import LessonKit
import TableKit

#if canImport(Glibc)
    import Glibc
#endif

/// Output longer than the screen, on a terminal, through the learner's pager
/// as git pages it: `$PAGER` (empty: none), else `less -R` when installed.
/// Off a terminal, or when it fits, it is printed as it is.
///
/// The pager takes this process's place (`exec`), the text on its standard
/// input: it owns the terminal and Ctrl-C as when run by hand, and nothing is
/// left running behind it.
enum Pager {
    /// The shell command that pages, or nil for none.
    static func command(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let pager = environment["PAGER"] {
            return pager.allSatisfy(\.isWhitespace) ? nil : pager
        }
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return path.contains { FileManager.default.isExecutableFile(atPath: "\($0)/less") } ? "less -R" : nil
    }

    /// Prints `text` (its lines already fitted to the terminal), through the pager when it pages.
    static func show(_ text: String) {
        guard isatty(STDOUT_FILENO) == 1, isatty(STDIN_FILENO) == 1, let command = command(),
            text.split(separator: "\n", omittingEmptySubsequences: false).count >= screenLines
        else {
            sayAsIs(text)
            return
        }
        page(text, with: command)
        // The pager could not start: the text as it is, rather than nothing.
        sayAsIs(text)
    }

    /// The terminal's height; 0 when it cannot be told (then anything pages).
    private static var screenLines: Int {
        var size = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 else { return 0 }
        return Int(size.ws_row)
    }

    /// Execs `sh -c command` with the text on its standard input; returns only when that fails.
    private static func page(_ text: String, with command: String) {
        // A file gone from its folder but open: the pager reads all of it, and nothing is left behind.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lessons-page-\(UUID().uuidString)")
        guard (try? Data((text + "\n").utf8).write(to: file)) != nil else { return }
        let descriptor = open(file.path, O_RDONLY)
        unlink(file.path)
        guard descriptor >= 0 else { return }
        let terminal = dup(STDIN_FILENO)
        dup2(descriptor, STDIN_FILENO)
        close(descriptor)
        for number in ChildProcess.endingSignals { signal(number, SIG_DFL) }
        let argv = ["/bin/sh", "-c", command]
        var cArguments = argv.map { strdup($0) } + [nil]
        execv(argv[0], &cArguments)
        // Not started: the keyboard back where it was.
        dup2(terminal, STDIN_FILENO)
        close(terminal)
    }
}
