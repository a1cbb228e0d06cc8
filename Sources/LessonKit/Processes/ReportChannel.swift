import Foundation

/// How a step's `--json` report reaches the harness that started it: a file
/// the harness names in the child's environment, never standard output.
///
/// Standard output is the learner's: the first thing a learner does to debug
/// is `print`, and one line before the JSON made every scenario of `lessons
/// check` "ended with status 0 and no report". On its own channel, the report
/// stays whole whatever the program prints, and what it printed can be shown.
public enum ReportChannel {
    /// The variable holding the file's path, set by `ChildProcess.receivesReport`.
    static let variable = "OPERATION_LESSONS_REPORT_FILE"

    /// Whether a harness named a file for the report (rather than a person asking for `--json`).
    static var isToHarness: Bool { !(ProcessInfo.processInfo.environment[variable] ?? "").isEmpty }

    /// Sends `json`: to the harness's file when this program was started with
    /// one, else to standard output (a person or a script asked for `--json`).
    /// False, said on standard error, when the harness's file cannot be written.
    static func send(_ json: String, program: String) -> Bool {
        guard isToHarness, let path = ProcessInfo.processInfo.environment[variable] else {
            return StandardStream.output.line(json)
        }
        do {
            try OutputFile.write(json + "\n", to: path)
            return true
        } catch {
            StandardStream.error.message("\(program): cannot hand the report over: \(error)")
            return false
        }
    }

    /// Takes back a report handed over to the harness, as if none had been sent; nothing to do without a harness.
    static func withdraw() {
        guard isToHarness, let path = ProcessInfo.processInfo.environment[variable] else { return }
        try? FileManager.default.removeItem(atPath: path)
    }
}
