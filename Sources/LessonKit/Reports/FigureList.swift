import Foundation

/// The figures a text quotes, each tied to the run that produces it, so a
/// figure that no longer matches its run is found (`FigureList.check`) and
/// rewritten from a fresh run (`FigureList.write`). A text lists its figures
/// at its end, in a comment a reader of the rendered page does not see:
///
///     <!-- figures
///     {} frames with another row's icon :: 2 --scenario fast-scroll-slow-rows :: wrongImageFrames
///     -->
///
/// one a line, fields joined by " :: " (which Markdown tables and prose do not
/// use): the words around the figure as the text has them (`{}` is the
/// figure, `{,}` with thousands separated), the run (a step and the flags of
/// its executable, so `swift run lessons run 2 --scenario fast-scroll-slow-rows`
/// shows it), and the figure: a key of the run's `--json` report
/// (`measures.cycleLength` reads a step's own), or two joined by " - " or " / ".
public struct Figure: Sendable, Equatable {
    public let file: String
    public let pattern: String
    public let run: FigureRun
    public let expression: String
    /// The line of the figures comment that lists it, for messages.
    public let line: Int

    /// The figure, as the text should show it, from the run's report.
    public func text(from report: [String: Any]) throws(FigureError) -> String {
        let value = try Self.evaluate(expression, in: report)
        return pattern.replacingOccurrences(
            of: pattern.contains("{,}") ? "{,}" : "{}", with: Self.format(value, grouped: pattern.contains("{,}")))
    }

    static func evaluate(_ expression: String, in report: [String: Any]) throws(FigureError) -> Double {
        for operation in [" - ", " / "] where expression.contains(operation) {
            let parts = expression.components(separatedBy: operation)
            guard parts.count == 2 else { throw FigureError("cannot read the figure '\(expression)'") }
            let (left, right) = (try evaluate(parts[0], in: report), try evaluate(parts[1], in: report))
            if operation == " - " { return left - right }
            guard right != 0 else { throw FigureError("'\(expression)' divides by zero") }
            return left / right
        }
        var object: Any? = report
        for key in expression.split(separator: ".") { object = (object as? [String: Any])?[String(key)] }
        switch object {
        case let number as NSNumber: return number.doubleValue
        default: throw FigureError("the report has no number '\(expression)'")
        }
    }

    /// Whole numbers as they are; others to one decimal.
    static func format(_ value: Double, grouped: Bool) -> String {
        guard value == value.rounded(), abs(value) < 1e15 else { return String(format: "%.1f", value) }
        let digits = String(Int(value))
        guard grouped, digits.count > 3 else { return digits }
        var text = ""
        for (index, digit) in digits.reversed().enumerated() {
            if index > 0 && index % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return String(text.reversed())
    }

    /// The pattern as a search: the figure's place matches any number.
    var search: NSRegularExpression? {
        let parts = pattern.components(separatedBy: pattern.contains("{,}") ? "{,}" : "{}")
        guard parts.count == 2 else { return nil }
        let expression =
            NSRegularExpression.escapedPattern(for: parts[0]) + "(-?[0-9][0-9,]*(?:\\.[0-9]+)?)"
            + NSRegularExpression.escapedPattern(for: parts[1])
        return try? NSRegularExpression(pattern: expression)
    }
}

/// A run a figure comes from: a step and the flags of its executable.
public struct FigureRun: Hashable, Sendable, CustomStringConvertible {
    public let step: Int
    public let arguments: [String]

    public var description: String { (["lessons run \(step)"] + arguments).joined(separator: " ") }
}

public struct FigureError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}

public enum FigureList {
    /// The figures `text` (the file at `file`) lists in its `<!-- figures … -->` comment.
    public static func figures(in text: String, file: String) throws(FigureError) -> [Figure] {
        guard let start = text.range(of: "<!-- figures") else { return [] }
        guard let end = text.range(of: "-->", range: start.upperBound..<text.endIndex) else {
            throw FigureError("\(file): the figures comment is not closed with -->")
        }
        let firstLine = text[..<start.lowerBound].filter { $0 == "\n" }.count + 2
        var figures: [Figure] = []
        for (index, raw) in text[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
            .dropFirst().enumerated()
        {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            let place = "\(file):\(firstLine + index)"
            let fields = line.components(separatedBy: " :: ").map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == 3 else {
                throw FigureError("\(place): want 'words with {} :: step and flags :: figure'")
            }
            let run = fields[1].split(separator: " ").map(String.init)
            guard let step = run.first.flatMap({ Int($0) }) else {
                throw FigureError("\(place): the run starts with a step number, not '\(fields[1])'")
            }
            let figure = Figure(
                file: file, pattern: fields[0], run: FigureRun(step: step, arguments: Array(run.dropFirst())),
                expression: fields[2], line: firstLine + index)
            guard figure.search != nil else {
                throw FigureError("\(place): the words need exactly one {} (or {,}) for the figure")
            }
            figures.append(figure)
        }
        return figures
    }

    /// One figure that does not match its run: what the text says, what the run measured.
    public struct Mismatch: Sendable, CustomStringConvertible {
        public let figure: Figure
        public let found: String?
        public let measured: String

        public var description: String {
            "\(figure.file):\(figure.line): '\(measured)' expected (\(figure.run), \(figure.expression)), "
                + (found.map { "the text says '\($0)'" } ?? "the text has no such words")
        }
    }

    /// How many distinct runs `check` plays at once. On the story clock a run's figures do not depend on what
    /// runs beside it: runs in child processes overlap one another, and the ones played in this process wait
    /// their turn (one scenario at a time) while the children play.
    public static let runsAtOnce = 4

    /// Every figure whose text does not say what its run measured. `report`
    /// plays a run (once per distinct run, `runsAtOnce` at a time) and returns its JSON report.
    public static func check(
        _ figures: [Figure], root: URL, report: @escaping @Sendable (FigureRun) async throws -> [String: Any]
    ) async throws -> [Mismatch] {
        let reports = try await played(figures.map(\.run), report)
        var texts: [String: String] = [:]
        var mismatches: [Mismatch] = []
        for figure in figures {
            if texts[figure.file] == nil {
                texts[figure.file] = try String(contentsOf: root.appendingPathComponent(figure.file), encoding: .utf8)
            }
            let measured = try figure.text(from: reports[figure.run] ?? [:])
            let text = texts[figure.file] ?? ""
            guard !text.contains(measured) else { continue }
            let found = figure.search?.firstMatch(in: text, range: NSRange(text.startIndex..., in: text))
                .flatMap { Range($0.range, in: text) }.map { String(text[$0]) }
            mismatches.append(Mismatch(figure: figure, found: found, measured: measured))
        }
        return mismatches
    }

    /// A run's JSON report handed from the task that played it: JSONSerialization's values are never mutated.
    private struct PlayedReport: @unchecked Sendable {
        let run: FigureRun
        let values: [String: Any]
    }

    /// Each distinct run of `runs` played once, at most `runsAtOnce` at a time.
    private static func played(
        _ runs: [FigureRun], _ report: @escaping @Sendable (FigureRun) async throws -> [String: Any]
    ) async throws -> [FigureRun: [String: Any]] {
        var seen: Set<FigureRun> = []
        var waiting = runs.filter { seen.insert($0).inserted }.makeIterator()
        return try await withThrowingTaskGroup(of: PlayedReport.self) { group in
            func playNext() {
                guard let run = waiting.next() else { return }
                group.addTask { PlayedReport(run: run, values: try await report(run)) }
            }
            for _ in 0..<runsAtOnce { playNext() }
            var reports: [FigureRun: [String: Any]] = [:]
            while let played = try await group.next() {
                reports[played.run] = played.values
                playNext()
            }
            return reports
        }
    }

    /// Rewrites each mismatched figure's first occurrence with what was measured.
    public static func write(_ mismatches: [Mismatch], root: URL) throws {
        for (file, group) in Dictionary(grouping: mismatches, by: \.figure.file) {
            let url = root.appendingPathComponent(file)
            var text = try String(contentsOf: url, encoding: .utf8)
            for mismatch in group {
                guard let found = mismatch.found, let range = text.range(of: found) else { continue }
                text.replaceSubrange(range, with: mismatch.measured)
            }
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
    }
}
