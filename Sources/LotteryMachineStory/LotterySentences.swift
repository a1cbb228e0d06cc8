import LessonKit

/// Each of the lottery run's measures said in a sentence: what the summary at
/// the end of step 9 prints (the keys stay in `--json`).
enum LotterySentences {
    static func count(_ value: Double, _ noun: String) -> String { counted(Int(value), noun) }

    static let all: [MeasureSentence] = [
        MeasureSentence("presses") { "The button was pressed \(count($0, "time"))." },
        MeasureSentence("digitUpdates") { "The digits changed \(count($0, "time"))," },
        MeasureSentence("medianTickMs") { "every \(String(format: "%g", $0)) ms while rolling (the median gap)." },
        MeasureSentence("digitUpdatesOffMainQueue") {
            $0 == 0
                ? "Every digit was written on the main queue."
                : "\(count($0, "digit update")) were written off the main queue."
        },
        MeasureSentence("rollsAfterPause") {
            $0 == 0
                ? "After a pause the digits stopped at once."
                : "After a pause the digits still changed up to \(count($0, "time")) before the next press."
        },
        MeasureSentence("operationCountAfterPause") {
            "While paused, the queue still held \(count($0, "operation")) (operationCount)."
        },
        MeasureSentence("rollsAfterResume") {
            $0 == 0
                ? "After resume the digits did not change again."
                : "After a resume the digits changed at least \(count($0, "time")) before the next press."
        },
        MeasureSentence(
            "terminalRestored", yes: "The terminal was put back as it was.",
            no: "The terminal was not put back as it was."),
    ]
}
