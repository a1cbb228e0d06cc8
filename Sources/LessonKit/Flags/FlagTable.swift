/// A command's whole command line, declared: its words in order (`N`), its
/// flags, the flags of which one at most may be given, and whether what
/// follows its words is handed on untouched (`lessons run N [flags]`). From
/// it come the parsing, the errors (one sentence naming the flag), the usage
/// `--help` prints, did-you-mean for a slip, and docs/cli.md's synopsis.
public struct FlagTable<Options> {
    public var start: Options
    public var words: [Word<Options>]
    public var flags: [Flag<Options>]
    /// Flags that exclude each other: `[["--markdown", "--json"]]`.
    public var exclusive: [[String]]
    /// Where the arguments after the words go as they are, and what the usage calls them (`flags`).
    public var handsOn: (name: String, field: WritableKeyPath<Options, [String]>)?
    /// The column the flags' help starts at; nil: two spaces after the widest flag.
    public var helpColumn: Int?
    /// What the synopsis says for all the flags (`[flags]`), when they are too many to list there.
    public var flagsSummary: String?

    public init(
        _ start: Options, words: [Word<Options>] = [], flags: [Flag<Options>] = [], exclusive: [[String]] = [],
        handsOn: (name: String, field: WritableKeyPath<Options, [String]>)? = nil, helpColumn: Int? = nil,
        flagsSummary: String? = nil
    ) {
        self.start = start
        self.words = words
        self.flags = flags
        self.exclusive = exclusive
        self.handsOn = handsOn
        self.helpColumn = helpColumn
        self.flagsSummary = flagsSummary
    }

    /// The options the arguments give, or nil for `--help` (`-h`) when the
    /// table declares no `--help` of its own. A flag's last giving wins.
    public func parse(_ arguments: [String]) throws(UsageError) -> Options? {
        var options = start
        var remaining = arguments[...]
        var given: [String] = []
        var wordsTaken = 0
        let ownHelp = flag(named: "--help") != nil
        while let argument = remaining.popFirst() {
            let flag = flag(named: argument)
            // After its words, a table that hands on keeps its own flags and hands on the rest (`--help` too).
            if let handsOn, wordsTaken == words.count, flag == nil {
                options[keyPath: handsOn.field].append(argument)
                continue
            }
            if !ownHelp && ["--help", "-h"].contains(argument) { return nil }
            if let flag {
                try flag.set(&options, flag.valueName == nil ? nil : try Self.value(of: flag.name, from: &remaining))
                given.append(flag.name)
                continue
            }
            // A table that hands on takes its words first, whatever they look like: the word's own error says why.
            if argument.hasPrefix("-") && handsOn == nil {
                throw .unknownFlag(argument, among: shown.map(\.name))
            }
            guard wordsTaken < words.count else { throw UsageError("unexpected argument '\(argument)'") }
            try words[wordsTaken].set(&options, argument)
            wordsTaken += 1
        }
        if let missing = words.dropFirst(wordsTaken).first(where: \.isRequired) {
            throw UsageError(missing.missing)
        }
        for group in exclusive where group.filter(given.contains).count > 1 {
            throw UsageError("choose one of " + group.dropLast().joined(separator: ", ") + " and " + (group.last ?? ""))
        }
        return options
    }

    /// The word after `flag`: never another flag, never empty (a script's unset variable).
    private static func value(of flag: String, from remaining: inout ArraySlice<String>) throws(UsageError) -> String {
        guard let value = remaining.popFirst(), !value.hasPrefix("--"), !value.allSatisfy(\.isWhitespace) else {
            throw UsageError("\(flag) needs a value")
        }
        return value
    }

    public func flag(named name: String) -> Flag<Options>? {
        flags.first { $0.name == name || $0.shortName == name }
    }

    /// The flags the usage and the docs show.
    public var shown: [Flag<Options>] { flags.filter { !$0.isHidden } }

    /// What follows the command's name in its usage: `N [--yes] [--markdown | --json] [flags]`.
    public var synopsis: String {
        var parts = words.map { $0.isRequired ? $0.name : "[\($0.name)]" }
        var listed: Set<String> = []
        if let flagsSummary { parts.append("[\(flagsSummary)]") }
        for flag in shown where flagsSummary == nil && !listed.contains(flag.name) {
            let group = exclusive.first { $0.contains(flag.name) } ?? [flag.name]
            listed.formUnion(group)
            parts.append("[" + group.compactMap { self.flag(named: $0)?.synopsis }.joined(separator: " | ") + "]")
        }
        if let handsOn { parts.append("[\(handsOn.name)]") }
        return parts.joined(separator: " ")
    }

    /// A line per word and shown flag: its synopsis, then its help in one
    /// column; a synopsis too wide for the column gets its help on the next line.
    public var lines: [String] {
        let rows = words.map { ($0.name, $0.help) } + shown.map { ($0.synopsis, $0.help) }
        let column = helpColumn ?? (2 + (rows.map(\.0.count).max() ?? 0) + 2)
        return rows.map { left, help in
            left.count + 4 <= column
                ? "  " + left.padding(toLength: column - 2, withPad: " ", startingAt: 0) + help
                : "  " + left + "\n" + String(repeating: " ", count: column) + help
        }
    }

    /// docs/cli.md's part for this command line: `PROGRAM SYNOPSIS` as a heading, what it does, and a row per
    /// word and shown flag, each as `--help` gives it.
    public func markdown(program: String, abstract: String) -> String {
        let rows = words.map { ($0.name, $0.help) } + shown.map { ($0.synopsis, $0.help) }
        var lines = ["#### `" + "\(program) \(synopsis)".trimmingSuffix(" ") + "`", "", abstract]
        if !rows.isEmpty {
            lines += ["", "| argument | meaning |", "|---|---|"]
            lines += rows.map { "| `\($0)` | \($1.replacingOccurrences(of: "|", with: "\\|")) |" }
        }
        return lines.joined(separator: "\n")
    }

    /// `usage: PROGRAM SYNOPSIS`, then the lines.
    public func usage(program: String) -> String {
        (["usage: \(program) \(synopsis)".trimmingSuffix(" ")] + lines).joined(separator: "\n")
    }
}

/// A word of a command line that is not a flag (`lessons run N`): what the
/// usage calls it, its help, and what it sets (or the error for a word that is none).
public struct Word<Options> {
    public let name: String
    public let help: String
    public let isRequired: Bool
    /// The error when a required word is not given.
    let missing: String
    let set: (inout Options, String) throws(UsageError) -> Void

    /// A word the command needs; `missing` is the error without it.
    public static func required(
        _ name: String, help: String, missing: String, set: @escaping (inout Options, String) throws(UsageError) -> Void
    ) -> Word {
        Word(name: name, help: help, isRequired: true, missing: missing, set: set)
    }

    /// A word the command may be given.
    public static func optional(
        _ name: String, help: String, set: @escaping (inout Options, String) throws(UsageError) -> Void
    ) -> Word {
        Word(name: name, help: help, isRequired: false, missing: "", set: set)
    }
}

extension String {
    fileprivate func trimmingSuffix(_ character: Character) -> String {
        var text = self
        while text.last == character { text.removeLast() }
        return text
    }
}
