import LessonKit

/// Each of the tour's measures said in a sentence, in the order the tour plays
/// its parts: what the summary at the end of step 8 prints (the keys stay in `--json`).
enum TourSentences {
    static func count(_ value: Double, _ noun: String) -> String { counted(Int(value), noun) }
    static func number(_ value: Double) -> String { String(format: value == value.rounded() ? "%.0f" : "%.2f", value) }

    static let all: [MeasureSentence] = [
        MeasureSentence(
            "chainNoDependenciesInOrder", yes: "Without dependencies the update happened to run in order this time.",
            no: "Without dependencies the download, the unzip and the install ran out of order."),
        MeasureSentence(
            "chainNoDependenciesUnzipHadPackage", yes: "Without dependencies the unzip still found the package.",
            no: "Without dependencies the unzip found no package: it started before the download had finished."),
        MeasureSentence(
            "chainNoDependenciesInstalled", yes: "Without dependencies the update was installed all the same.",
            no: "Without dependencies nothing was installed."),
        MeasureSentence(
            "chainInOrder", yes: "With dependencies the download, the unzip and the install ran in order.",
            no: "Even with dependencies the download, the unzip and the install ran out of order."),
        MeasureSentence(
            "chainUnzipHadPackage", yes: "With dependencies the unzip found the package.",
            no: "With dependencies the unzip still found no package."),
        MeasureSentence(
            "chainInstalled", yes: "With dependencies the update was installed.",
            no: "With dependencies the update was not installed."),
        MeasureSentence(
            "chainInstallOnMainQueue",
            yes: "The install ran on the main queue after operations on a background queue: dependencies cross queues.",
            no: "The install did not run on the main queue."),
        MeasureSentence("completionBlocksOnMainQueue") {
            $0 == 0
                ? "No completion block ran on the main queue, not even the install's."
                : "\(count($0, "completion block")) ran on the main queue."
        },
        MeasureSentence(
            "cancelledDownloadUnzipRan",
            yes: "A cancelled download did not hold back the unzip that depended on it: the unzip ran.",
            no: "The unzip did not run once the download it depended on was cancelled."),
        MeasureSentence("cycleTimeoutMs") { "The unchecked cycle was given \(number($0)) ms to finish." },
        MeasureSentence("cycleFinishedWithinTimeout") {
            $0 == 0
                ? "None of its 3 operations finished, and nothing said why."
                : "\(number($0)) of its 3 operations finished."
        },
        MeasureSentence("cycleReadyOperations") {
            $0 == 0
                ? "None of them was even ready: each waited for another."
                : "\(count($0, "operation")) of the cycle were ready to run."
        },
        MeasureSentence(
            "cycleReleasedByCancel", yes: "Cancelling all three let the queue finish them.",
            no: "Even cancelled, the cycle's operations never finished."),
        MeasureSentence("cycleOperationsThatRan") {
            $0 == 0
                ? "None of them did its work once cancelled." : "\(count($0, "operation")) did its work all the same."
        },
        MeasureSentence(
            "cycleDetected", yes: "The cycle check refused the cycle before anything was queued.",
            no: "The cycle check found no cycle."),
        MeasureSentence("cycleLength") { "The cycle it named is \(count($0, "operation")) long." },
        MeasureSentence(
            "priorityOrderAsDocumented",
            yes:
                "A suspended queue that runs one at a time started its operations highest priority first, as documented.",
            no: "A suspended queue that runs one at a time did not start its operations in the documented order."),
        MeasureSentence("qosUserInteractiveNice") { "The .userInteractive threads ran at nice \(number($0))," },
        MeasureSentence("qosBackgroundNice") { "the .background ones at nice \(number($0))." },
        MeasureSentence(
            "lateCompletionBlockRanAfterItLeft", yes: "A completionBlock set after its operation left the queue ran.",
            no: "A completionBlock set after its operation had left the queue never ran."),
        MeasureSentence("waitUntilFinishedBlockedMs") {
            "addOperations(_:waitUntilFinished: true) held its calling thread for \(number($0)) ms."
        },
        MeasureSentence(
            "startRanOnCallingThread", yes: "start() called directly ran the operation at once, on the calling thread.",
            no: "start() called directly ran the operation on another thread."),
        MeasureSentence("blockOperationThreads") {
            "One BlockOperation's execution blocks ran on \(count($0, "thread")),"
        },
        MeasureSentence("blockOperationMaxAtOnce") { "at most \(number($0)) at once," },
        MeasureSentence("blockOperationMs") { "\(number($0)) ms in all." },
        MeasureSentence("limit1MaxAtOnce") {
            "With maxConcurrentOperationCount 1, at most \(count($0, "operation")) ran at once;"
        },
        MeasureSentence("limit2MaxAtOnce") { "with 2, at most \(number($0));" },
        MeasureSentence("limitDefaultMaxAtOnce") { "with no limit, at most \(number($0))." },
    ]
}
