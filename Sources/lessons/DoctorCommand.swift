import Foundation
import LessonKit
import TerminalKit

/// `lessons doctor`: every fact of the toolchain the seams rely on
/// (docs/toolchain-contract.md), probed here, one line each. A step run, a
/// check or a test refuses to start when a start-up probe fails; the doctor
/// also runs the probes too slow for every start, and names the tests that
/// check what only a race build or a crash can show.
enum DoctorCommand: LessonsCommand {
    static let name = "doctor"
    static let abstract = "probes every toolchain fact the seams rely on, one line each (docs/toolchain-contract.md)"
    struct Options {
        var json = false
    }

    static var flags: FlagTable<Options> {
        FlagTable(Options(), flags: [.switch("--json", \.json, help: "the rows and their results as JSON")])
    }

    static let about = """
        Probes each fact of docs/toolchain-contract.md in this program: ✓ holds, ✗ fails, · checked elsewhere \
        (a race build or a crash shows it; the tests named). When: start (probed before every step run, check \
        and test run, which refuse if it fails), doctor (only here), tests. Exit 0 when nothing fails, 1 otherwise.
        """

    static func run(_ options: Options) throws -> Int32 {
        let results = ToolchainContract.facts.map { (fact: $0, result: $0.run()) }
        let failed = results.filter { if case .fails = $0.result { true } else { false } }
        if options.json {
            sayAsIs(try json(results))
        } else {
            say("Toolchain facts the seams rely on, checked on \(ToolchainContract.checkedOn):")
            for (fact, result) in results { sayAsIs(line(fact, result)) }
            say(
                failed.isEmpty
                    ? "Every fact probed here holds."
                    : "\(failed.count) failed: step, check and test runs refuse while a start probe fails.")
        }
        return failed.isEmpty ? 0 : 1
    }

    /// A row in 80 columns: its mark, its name, when it is probed, what the probe found.
    static func line(_ fact: ToolchainFact, _ result: ProbeResult) -> String {
        let (mark, finding) =
            switch result {
            case .holds(let finding): ("✓", finding)
            case .fails(let finding): ("✗", finding)
            case .notHere(let finding): ("·", finding)
            }
        let text =
            mark + " " + fact.name.padding(toLength: 16, withPad: " ", startingAt: 0)
            + when(fact).padding(toLength: 8, withPad: " ", startingAt: 0) + TerminalText.printable(finding)
        return TerminalText.fitted(text, to: 80, padded: false)
    }

    static func when(_ fact: ToolchainFact) -> String {
        switch fact.probed {
        case .atEveryStart: "start"
        case .byDoctor: "doctor"
        case .byTests: "tests"
        }
    }

    private struct Row: Encodable {
        let name, what, probed, probe, result, finding, checkedOn: String
        let usedIn: [String]
    }

    static func json(_ results: [(fact: ToolchainFact, result: ProbeResult)]) throws -> String {
        let rows = results.map { fact, result in
            let (outcome, finding) =
                switch result {
                case .holds(let finding): ("holds", finding)
                case .fails(let finding): ("fails", finding)
                case .notHere(let finding): ("elsewhere", finding)
                }
            return Row(
                name: fact.name, what: fact.what, probed: when(fact), probe: fact.probe, result: outcome,
                finding: finding, checkedOn: ToolchainContract.checkedOn, usedIn: fact.usedIn)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(rows), as: UTF8.self)
    }
}
