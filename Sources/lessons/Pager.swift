import Foundation
import HostOS
import LessonKit
import TableKit

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
        guard HostTerminal.isTerminal(HostDescriptor.standardOutput), HostTerminal.isTerminal(HostDescriptor.standardInput),
            let command = command(),
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
        HostTerminal.size(of: HostDescriptor.standardOutput)?.rows ?? 0
    }

    /// Execs `sh -c command` with the text on its standard input; returns only when that fails.
    private static func page(_ text: String, with command: String) {
        // A file gone from its folder but open: the pager reads all of it, and nothing is left behind.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lessons-page-\(UUID().uuidString)")
        guard (try? Data((text + "\n").utf8).write(to: file)) != nil else { return }
        let descriptor = HostDescriptor.openForReading(file.path)
        HostFiles.remove(file.path)
        guard let descriptor else { return }
        let terminal = HostDescriptor.duplicate(HostDescriptor.standardInput)
        HostDescriptor.move(descriptor, onto: HostDescriptor.standardInput)
        ChildProcess.handOverSignals()
        _ = HostProcess.replace(with: "/bin/sh", arguments: ["/bin/sh", "-c", command])
        // Not started: the keyboard back where it was.
        HostDescriptor.move(terminal, onto: HostDescriptor.standardInput)
    }
}
