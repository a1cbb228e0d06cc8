/// The flags a step adds to every lesson's (a variant's `--naive-pool`, step 8's `--part`, `--play`): declared
/// in the one table like the others, and kept in `LessonOptions.extra` by their name without dashes, for the
/// step's own code to read.
extension Flag where Options == LessonOptions {
    /// A switch of a step's own: given, its name reads "true".
    public static func step(_ name: String, help: String) -> Flag {
        Flag(name, valueName: nil, help: help, hidden: false) { options, _ in
            options.extra[String(name.dropFirst(2))] = "true"
        }
    }

    /// A flag of a step's own that takes a value, parsed as `kind` says.
    public static func step(_ name: String, _ kind: FlagValue<String>, help: String) -> Flag {
        Flag(name, valueName: kind.name, help: help, hidden: false) { options, text throws(UsageError) in
            options.extra[String(name.dropFirst(2))] = try kind.parse(text ?? "", name)
        }
    }
}

extension FlagValue where Value == String {
    /// One of `choices`, as given.
    public static func choice(_ choices: [String]) -> FlagValue {
        FlagValue(choices.joined(separator: "|")) { text, flag throws(UsageError) in
            guard choices.contains(text) else {
                let listed = choices.dropLast().joined(separator: ", ") + " or " + (choices.last ?? "")
                throw UsageError("\(flag) takes \(listed), not '\(text)'")
            }
            return text
        }
    }

    /// Words separated by commas, as given: a list that names nothing would play nothing and say nothing.
    public static func list(_ name: String) -> FlagValue {
        FlagValue(name) { text, flag throws(UsageError) in
            guard text.split(separator: ",").contains(where: { !$0.allSatisfy(\.isWhitespace) }) else {
                throw UsageError("\(flag) needs a value")
            }
            return text
        }
    }
}
