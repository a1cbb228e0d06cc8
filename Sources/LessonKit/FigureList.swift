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

    /// Every figure whose text does not say what its run measured. `report`
    /// plays a run (once per distinct run) and returns its JSON report.
    public static func check(
        _ figures: [Figure], root: URL, report: (FigureRun) async throws -> [String: Any]
    ) async throws -> [Mismatch] {
        var reports: [FigureRun: [String: Any]] = [:]
        var texts: [String: String] = [:]
        var mismatches: [Mismatch] = []
        for figure in figures {
            if reports[figure.run] == nil { reports[figure.run] = try await report(figure.run) }
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
