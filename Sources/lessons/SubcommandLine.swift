import Foundation
import LessonKit

/// What the comparison subcommands (scoreboard, timelines, framecost) share on
/// their command lines: reading flags and their values, the common flags'
/// checks, and what `--help` and a bad command line do.
struct SubcommandArguments {
    private var remaining: ArraySlice<String>

    init(_ arguments: [String]) {
        remaining = arguments[...]
    }

    mutating func next() -> String? {
        remaining.popFirst()
    }

    /// The word after `flag`.
    mutating func value(of flag: String) throws(UsageError) -> String {
        guard let value = remaining.popFirst(), !value.hasPrefix("--") else {
            throw UsageError("\(flag) needs a value")
        }
        return value
    }

    mutating func speed(_ flag: String) throws(UsageError) -> Double {
        let text = try value(of: flag)
        guard let speed = Double(text), speed.isFinite, (0.1...1000).contains(speed) else {
            throw UsageError("\(flag) takes a number from 0.1 to 1000, not '\(text)'")
        }
        return speed
    }

    mutating func seed(_ flag: String) throws(UsageError) -> UInt64 {
        let text = try value(of: flag)
        guard let seed = UInt64(text) else { throw UsageError("\(flag) takes a whole number, not '\(text)'") }
        return seed
    }

    mutating func scenario(_ flag: String) throws(UsageError) -> String {
        let name = try value(of: flag)
        guard Scenario.named(name) != nil else { throw UsageError("unknown scenario '\(name)'") }
        return name
    }

    /// The error for an argument no case of the subcommand took.
    static func unexpected(_ argument: String) -> UsageError {
        UsageError(argument.hasPrefix("-") ? "unknown flag \(argument)" : "unexpected argument '\(argument)'")
    }
}

enum Subcommand {
    /// Parses a subcommand's command line: `.run` with its options, or
    /// `.exit` after `--help` (parse returned nil: the usage, status 0) or a bad
    /// command line (one line naming the problem, then the usage, status 2).
    enum Parsed<Options> {
        case run(Options)
        case exit(Int32)
    }

    static func parse<Options>(
        _ command: String, usage: String, _ parse: () throws(UsageError) -> Options?
    ) -> Parsed<Options> {
        do {
            guard let options = try parse() else {
                print(usage)
                return .exit(0)
            }
            return .run(options)
        } catch {
            printError("lessons \(command): \(error)\n\(usage)")
            return .exit(2)
        }
    }

    /// The step executables beside `lessons`, or nil (having said which are
    /// missing) when any of `steps` is not built.
    static func children(for steps: [LessonEntry], command: String) -> StepProcess? {
        let children = StepProcess.besideThisProgram()
        let missing = children.missing(steps)
        guard missing.isEmpty else {
            printError(
                "lessons \(command): \(missing.map(\.target).joined(separator: ", ")) not built; run: swift build")
            return nil
        }
        return children
    }
}
