import Foundation

/// The flags every lesson accepts (docs/cli.md), parsed in one place.
public struct LessonOptions: Codable, Equatable, Sendable {
    public var scenario: String?
    /// Network latency in milliseconds of story time; nil: the tutorials' 500 ms.
    public var latencyMs: Double?
    /// Story seconds per wall second, when the run is paced.
    public var speed: Double = 1
    /// Whether to pace the story for a person watching (`--pace`, `--no-pace`);
    /// nil: paced when the live screen is on a terminal.
    public var pace: Bool?
    public var offline = false
    public var failRate: Double = 0
    public var seed: UInt64 = 1
    public var json = false
    /// Print the screen as a stream of JSON lines (`FrameStream`), then the
    /// report and timeline: what `lessons compare` reads from each side.
    public var frames = false
    public var timelinePath: String?
    public var plain = false
    public var catalogPath: String?
    public var clearCache = false
    public var help = false
    /// Flags a lesson adds for itself (step 9's `--script`), by name without dashes.
    public var extra: [String: String] = [:]

    public init() {}

    /// A flag a lesson adds: its name (without dashes), whether it takes a
    /// value, and the line `--help` prints for it.
    public struct ExtraFlag: Sendable {
        public let name: String
        public let takesValue: Bool
        public let help: String
        /// What the usage calls the value (`--script FILE`).
        public let valueName: String

        public init(name: String, takesValue: Bool, help: String, valueName: String = "VALUE") {
            self.name = name
            self.takesValue = takesValue
            self.help = help
            self.valueName = valueName
        }
    }

    /// Parses the arguments (without the program name). Unknown flags,
    /// missing values and malformed numbers are errors that say which flag.
    public static func parse(_ arguments: [String], extraFlags: [ExtraFlag] = []) throws(UsageError) -> LessonOptions {
        var options = LessonOptions()
        var remaining = arguments[...]
        func value(for flag: String) throws(UsageError) -> String {
            // An empty value (`--part ''`, a script's unset variable) is no value.
            guard let value = remaining.popFirst(), !value.hasPrefix("--"), !value.allSatisfy(\.isWhitespace) else {
                throw UsageError("\(flag) needs a value")
            }
            return value
        }
        func number(for flag: String, in range: ClosedRange<Double>) throws(UsageError) -> Double {
            let text = try value(for: flag)
            guard let number = Double(text), number.isFinite, range.contains(number) else {
                throw UsageError(
                    "\(flag) takes a number from \(range.lowerBound.clean) to \(range.upperBound.clean), not '\(text)'")
            }
            return number
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--help", "-h": options.help = true
            case "--scenario": options.scenario = try value(for: argument)
            case "--latency": options.latencyMs = try number(for: argument, in: 0...60_000)
            case "--speed": options.speed = try number(for: argument, in: 0.1...1000)
            case "--pace": options.pace = true
            case "--no-pace": options.pace = false
            case "--offline": options.offline = true
            case "--fail-rate": options.failRate = try number(for: argument, in: 0...1)
            case "--seed":
                let text = try value(for: argument)
                guard let seed = UInt64(text) else { throw UsageError("--seed takes a whole number, not '\(text)'") }
                options.seed = seed
            case "--json": options.json = true
            case "--frames": options.frames = true
            case "--timeline": options.timelinePath = try value(for: argument)
            case "--plain": options.plain = true
            case "--catalog": options.catalogPath = try value(for: argument)
            case "--clear-cache": options.clearCache = true
            default:
                let name = argument.hasPrefix("--") ? String(argument.dropFirst(2)) : ""
                guard let extra = extraFlags.first(where: { $0.name == name }) else {
                    throw argument.hasPrefix("-")
                        ? .unknownFlag(argument) : UsageError("unexpected argument '\(argument)'")
                }
                options.extra[name] = extra.takesValue ? try value(for: argument) : "true"
            }
        }
        return options
    }

    /// The flag list `--help` and usage errors print.
    public static func usage(program: String, scenarios: [String], extraFlags: [ExtraFlag] = []) -> String {
        var lines = [
            "usage: \(program) [flags]",
            "  --help               what this lesson shows, these flags, an example",
            "  --scenario NAME      the script to play: \(scenarios.joined(separator: ", "))",
            "  --latency MS         network latency in ms (the tutorials' 500 by default)",
            "  --speed X            play the story X times faster than real time (default 1)",
            "  --pace               play at --speed for a person watching (default on a terminal)",
            "  --no-pace            play as fast as the machine allows (default with --json or off a terminal)",
            "  --offline            start with the network offline",
            "  --fail-rate P        each request fails with probability P (0…1), drawn from the seed",
            "  --seed N             the seed for jitter and faults (same seed, same faults)",
            "  --json               print the report as JSON instead of the screen",
            "  --frames             print the screen as JSON lines, then the report (what lessons compare reads)",
            "  --timeline FILE.svg  write the timeline picture",
            "  --plain              no colours or cursor moves (automatic when not a terminal)",
            "  --catalog FILE       load another app catalog (plist)",
            "  --clear-cache        empty this step's disk cache first",
        ]
        for flag in extraFlags {
            let left = "--\(flag.name)" + (flag.takesValue ? " " + flag.valueName : "")
            // A name that would leave less than two spaces before the help (the
            // gap the wrapper takes for the column) gets its help on the next line.
            let column = String(repeating: " ", count: 23)
            lines.append(
                left.count < 20
                    ? "  " + left.padding(toLength: 21, withPad: " ", startingAt: 0) + flag.help
                    : "  " + left + "\n" + column + flag.help)
        }
        return lines.joined(separator: "\n")
    }
}

/// A command line that cannot be used; printed as one line, then the usage, exit status 2.
public struct UsageError: Error, Equatable, CustomStringConvertible, Sendable {
    public let message: String
    /// The flag the command line did not know, when that is the error.
    public let unknownFlag: String?

    public init(_ message: String, unknownFlag: String? = nil) {
        self.message = message
        self.unknownFlag = unknownFlag
    }

    public var description: String { message }

    /// Two errors are the same when they say the same.
    public static func == (first: UsageError, second: UsageError) -> Bool { first.message == second.message }
}

extension Double {
    fileprivate var clean: String { self == rounded() ? String(Int(self)) : String(self) }
}
