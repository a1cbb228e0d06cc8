/// One flag of a command line, declared once: its name, the value it takes,
/// the line `--help` gives it, and what it sets. A `FlagTable` of them is the
/// whole of a command's parsing, usage and did-you-mean (swift-argument-parser's
/// idea, without the dependency).
public struct Flag<Options> {
    /// `--seed`.
    public let name: String
    /// Another spelling parsed as this one and listed nowhere (`-h` for `--help`).
    public let shortName: String?
    /// What the usage calls the value (`--seed N`); nil for a switch.
    public let valueName: String?
    public let help: String
    /// Parsed, but left out of the usage, docs and suggestions.
    public let isHidden: Bool
    let set: (inout Options, String?) throws(UsageError) -> Void

    init(
        _ name: String, short: String? = nil, valueName: String?, help: String, hidden: Bool,
        set: @escaping (inout Options, String?) throws(UsageError) -> Void
    ) {
        self.name = name
        shortName = short
        self.valueName = valueName
        self.help = help
        isHidden = hidden
        self.set = set
    }

    /// A switch: given, `field` is true.
    public static func `switch`(
        _ name: String, short: String? = nil, _ field: WritableKeyPath<Options, Bool>, help: String,
        hidden: Bool = false
    ) -> Flag {
        Flag(name, short: short, valueName: nil, help: help, hidden: hidden) { options, _ in
            options[keyPath: field] = true
        }
    }

    /// One of a pair of switches that set one choice (`--pace`, `--no-pace`).
    public static func `switch`(
        _ name: String, _ field: WritableKeyPath<Options, Bool?>, to value: Bool, help: String, hidden: Bool = false
    ) -> Flag {
        Flag(name, valueName: nil, help: help, hidden: hidden) { options, _ in options[keyPath: field] = value }
    }

    /// A flag that takes the next argument, parsed as `kind` says.
    public static func value<Value>(
        _ name: String, _ kind: FlagValue<Value>, _ field: WritableKeyPath<Options, Value>, help: String,
        hidden: Bool = false
    ) -> Flag {
        Flag(name, valueName: kind.name, help: help, hidden: hidden) { options, text throws(UsageError) in
            options[keyPath: field] = try kind.parse(text ?? "", name)
        }
    }

    /// The same, for a value that is nil until given.
    public static func value<Value>(
        _ name: String, _ kind: FlagValue<Value>, _ field: WritableKeyPath<Options, Value?>, help: String,
        hidden: Bool = false
    ) -> Flag {
        Flag(name, valueName: kind.name, help: help, hidden: hidden) { options, text throws(UsageError) in
            options[keyPath: field] = try kind.parse(text ?? "", name)
        }
    }

    /// This flag with another line of help (a command that passes it on says what it does there).
    public func helping(_ help: String) -> Flag {
        Flag(name, short: shortName, valueName: valueName, help: help, hidden: isHidden, set: set)
    }

    /// This flag parsed but not shown: a command that takes it only to refuse it.
    public var hidden: Flag {
        Flag(name, short: shortName, valueName: valueName, help: help, hidden: true, set: set)
    }

    /// This flag in a command whose options hold these (`lessons compare`'s hold a step's).
    public func within<Outer>(_ field: WritableKeyPath<Outer, Options>) -> Flag<Outer> {
        let set = self.set
        return Flag<Outer>(name, short: shortName, valueName: valueName, help: help, hidden: isHidden) {
            outer, value throws(UsageError) in try set(&outer[keyPath: field], value)
        }
    }

    /// What the usage's first column shows: `--seed N`.
    public var synopsis: String { name + (valueName.map { " " + $0 } ?? "") }
}

/// What a flag's value is, and the one-sentence error for a value that is not one.
public struct FlagValue<Value> {
    /// What the usage calls it: `N`, `FILE`, `MS`.
    public let name: String
    let parse: (_ text: String, _ flag: String) throws(UsageError) -> Value

    public init(_ name: String, parse: @escaping (_ text: String, _ flag: String) throws(UsageError) -> Value) {
        self.name = name
        self.parse = parse
    }
}

extension FlagValue where Value == String {
    /// Any word (a path, a name checked later).
    public static func text(_ name: String) -> FlagValue { FlagValue(name) { text, _ in text } }

    /// A scenario's name, with the one meant for a slip.
    public static var scenario: FlagValue {
        FlagValue("NAME") { text, _ throws(UsageError) in
            guard Scenario.named(text) != nil else { throw .unknownScenario(text) }
            return text
        }
    }
}

extension FlagValue where Value == Double {
    public static func number(_ name: String, in range: ClosedRange<Double>) -> FlagValue {
        FlagValue(name) { text, flag throws(UsageError) in
            guard let number = Double(text), number.isFinite, range.contains(number) else {
                throw UsageError(
                    "\(flag) takes a number from \(range.lowerBound.clean) to \(range.upperBound.clean), not '\(text)'")
            }
            return number
        }
    }
}

extension FlagValue where Value == Int {
    public static func wholeNumber(_ name: String, in range: ClosedRange<Int>) -> FlagValue {
        FlagValue(name) { text, flag throws(UsageError) in
            guard let number = Int(text), range.contains(number) else {
                throw UsageError(
                    "\(flag) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
            }
            return number
        }
    }
}

extension FlagValue where Value == UInt64 {
    /// The seed of every random draw: any whole number a `UInt64` holds.
    public static var seed: FlagValue {
        FlagValue("N") { text, flag throws(UsageError) in
            guard let seed = UInt64(text) else { throw UsageError("\(flag) takes a whole number, not '\(text)'") }
            return seed
        }
    }
}

extension Double {
    /// 1000, not 1000.0; 0.1 as it is.
    fileprivate var clean: String { self == rounded() ? String(Int(self)) : String(self) }
}
