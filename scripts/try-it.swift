// Maintainer's command: every "Try it" break in Lessons/*.md is applied, its tests are run, and the sentence that
// lists the tests that fail is rewritten from that run, so a text never names fewer (or other) tests than fail.
//
//   swift scripts/try-it.swift run [LESSON…]      apply each break, run its tests, rewrite the lists (e.g. `run 06 10`)
//   swift scripts/try-it.swift write RESULTS      rewrite the lists from a saved run (`.build/try-it-results.json`)
//   swift scripts/try-it.swift check              only check that every break still applies to the sources
//
// A break is an HTML comment in a Try it item, followed by the sentence this command writes:
//
//   <!-- break --filter Lesson06 Sources/Lesson06SandboxCache/AppsViewController.swift
//   -        return hashedName
//   +        return URL(string: icon)?.lastPathComponent ?? icon
//   -->
//   These 2 tests fail: `a` and `b`.
//
// Lines starting with `-` are replaced by the lines starting with `+` (exact text, found exactly once in the file); a
// line `@@` starts another such change in the same file. The file is always put back, even on Ctrl-C. A run that
// takes over 20 s says how long it took, so the reader knows to wait.
import Foundation

struct Change { var old: String; var new: String }

struct Break: Codable {
    var lesson: String  // "Lessons/06-sandbox-cache.md"
    var ordinal: Int  // the n-th break of its lesson, from 1
    var spec: String  // the comment's text, to tell a stale result
    var filter: String
    var file: String
}

struct Result: Codable {
    var lesson: String
    var ordinal: Int
    var spec: String
    var failing: [String]
    var seconds: Double
}

let root = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
let lessonsFolder = root.appendingPathComponent("Lessons")
let breakPattern = try! NSRegularExpression(pattern: #"^( *)<!-- break (--filter \S+) (\S+)\n(.*?)\n *-->\n"#,
    options: [.anchorsMatchLines, .dotMatchesLineSeparators])

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("try-it: \(message)\n".utf8))
    exit(1)
}

func lessonFiles() -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: lessonsFolder.path)) ?? []
    return names.filter { $0.first?.isNumber == true && $0.hasSuffix(".md") }.sorted().map { "Lessons/\($0)" }
}

func read(_ path: String) -> String {
    guard let text = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) else {
        fail("cannot read \(path); run this from the package root")
    }
    return text
}

/// The breaks of one lesson, with the changes each makes.
func breaks(in lesson: String) -> [(Break, [Change])] {
    let text = read(lesson)
    let ns = text as NSString
    return breakPattern.matches(in: text, range: NSRange(location: 0, length: ns.length)).enumerated().map {
        index, match in
        let indent = ns.substring(with: match.range(at: 1)).count
        let body = ns.substring(with: match.range(at: 4))
        var changes: [Change] = []
        var old: [String] = [], new: [String] = []
        func close() {
            if !old.isEmpty || !new.isEmpty {
                changes.append(Change(old: old.map { $0 + "\n" }.joined(), new: new.map { $0 + "\n" }.joined()))
            }
            old = []; new = []
        }
        for raw in body.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.count >= indent && raw.prefix(indent).allSatisfy({ $0 == " " }) ? raw.dropFirst(indent) : raw
            if line == "@@" { close() }
            else if line.hasPrefix("-") { old.append(String(line.dropFirst())) }
            else if line.hasPrefix("+") { new.append(String(line.dropFirst())) }
            else { fail("\(lesson), break \(index + 1): a line is neither -, + nor @@: \(line)") }
        }
        close()
        let spec = ns.substring(with: match.range)
        let filter = String(ns.substring(with: match.range(at: 2)).dropFirst("--filter ".count))
        return (Break(lesson: lesson, ordinal: index + 1, spec: spec, filter: filter,
                      file: ns.substring(with: match.range(at: 3))), changes)
    }
}

/// Runs a command in the package root, its output (both streams) to the returned string.
func run(_ arguments: [String]) -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    process.currentDirectoryURL = root
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    do { try process.run() } catch { fail("cannot start \(arguments.joined(separator: " ")): \(error)") }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// The file a break changes, put back on exit and on Ctrl-C or SIGTERM.
nonisolated(unsafe) var pristine: (path: String, text: String)?
func restore() {
    if let pristine { try? pristine.text.write(toFile: pristine.path, atomically: true, encoding: .utf8) }
    pristine = nil
}
for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
    signal(signalNumber) { _ in
        restore()
        exit(130)
    }
}

/// Swift Testing's lines for a failed test: `✘ Test name() failed after 1.2 seconds` (or `with 3 test cases`).
let failedTest = try! NSRegularExpression(pattern: #"Test (\w+)\([^)]*\)(?: with \d+ test cases?)? failed after"#)
let runTime = try! NSRegularExpression(pattern: #"Test run with \d+ tests? .*?(?:passed|failed) after ([0-9.]+) seconds"#)

/// The file a break changes, its text before and after.
func apply(_ item: Break, _ changes: [Change]) -> (path: String, original: String, broken: String) {
    let path = root.appendingPathComponent(item.file).path
    guard let original = try? String(contentsOfFile: path, encoding: .utf8) else {
        fail("\(item.lesson), break \(item.ordinal): no file \(item.file)")
    }
    var broken = original
    for change in changes {
        let count = broken.components(separatedBy: change.old).count - 1
        if count != 1 {
            fail("\(item.lesson), break \(item.ordinal): the lines to change are found \(count) times in \(item.file)")
        }
        broken = broken.replacingOccurrences(of: change.old, with: change.new)
    }
    return (path, original, broken)
}

func measure(_ item: Break, _ changes: [Change]) -> Result {
    let (path, original, broken) = apply(item, changes)
    pristine = (path, original)
    defer { restore() }
    try! broken.write(toFile: path, atomically: true, encoding: .utf8)
    // `swift test` builds every product first, the executables the tests start included.
    let tests = run(["swift", "test", "--filter", item.filter])
    let ns = tests.output as NSString
    let whole = NSRange(location: 0, length: ns.length)
    let failing = Set(failedTest.matches(in: tests.output, range: whole).map { ns.substring(with: $0.range(at: 1)) })
    guard let time = runTime.firstMatch(in: tests.output, range: whole) else {
        fail("\(item.lesson), break \(item.ordinal): no test summary (does the broken code build?)\n\(tests.output.suffix(3000))")
    }
    if tests.status == 0 && !failing.isEmpty || tests.status != 0 && failing.isEmpty {
        fail("\(item.lesson), break \(item.ordinal): exit status \(tests.status) disagrees with the failures found")
    }
    return Result(lesson: item.lesson, ordinal: item.ordinal, spec: item.spec, failing: failing.sorted(),
                  seconds: Double(ns.substring(with: time.range(at: 1))) ?? 0)
}

/// The sentence a result gives, wrapped to the text's width under the item's indentation. The Try it names the
/// command (`swift test --filter …`) once, above its items.
func sentence(_ result: Result, indent: Int) -> String {
    var words: [String]
    switch result.failing.count {
    case 0: words = ["No", "test", "fails."]
    case 1: words = ["One", "test", "fails:", "`\(result.failing[0])`."]
    default:
        words = ["These", "\(result.failing.count)", "tests", "fail:"]
        words += result.failing.enumerated().map { index, name in
            "`\(name)`" + (index == result.failing.count - 1 ? "." : index == result.failing.count - 2 ? " and" : ",")
        }.flatMap { $0.split(separator: " ").map(String.init) }
    }
    if result.seconds > 20 { words += ["The", "run", "takes", "over", "20", "s", "(\(Int(result.seconds))", "s", "measured)."] }
    var lines: [String] = [], line = ""
    for word in words {
        if !line.isEmpty && indent + line.count + 1 + word.count > 118 { lines.append(line); line = "" }
        line += (line.isEmpty ? "" : " ") + word
    }
    lines.append(line)
    return lines.map { String(repeating: " ", count: indent) + $0 + "\n" }.joined()
}

/// Rewrites, after each break's comment, the sentence the script wrote last time (or puts one there).
func write(_ results: [Result]) {
    for lesson in Set(results.map(\.lesson)).sorted() {
        var text = read(lesson)
        for (item, _) in breaks(in: lesson).reversed() {
            guard let result = results.first(where: { $0.lesson == lesson && $0.ordinal == item.ordinal }) else { continue }
            guard result.spec == item.spec else {
                print("\(lesson), break \(item.ordinal): the break changed since it was measured; run it again")
                continue
            }
            guard let range = text.range(of: item.spec) else { continue }
            let indent = item.spec.prefix { $0 == " " }.count
            // The old sentence: from its first word to the first line that ends a sentence.
            var end = range.upperBound
            let rest = text[end...]
            let starts = ["No test fails", "One test fails", "These "].map { String(repeating: " ", count: indent) + $0 }
            if starts.contains(where: { rest.hasPrefix($0) }) {
                var cursor = end
                while cursor < text.endIndex {
                    let lineEnd = text[cursor...].firstIndex(of: "\n") ?? text.endIndex
                    let line = text[cursor..<lineEnd]
                    cursor = lineEnd < text.endIndex ? text.index(after: lineEnd) : lineEnd
                    if line.hasSuffix(".") { break }
                }
                end = cursor
            }
            text.replaceSubrange(range.upperBound..<end, with: sentence(result, indent: indent))
        }
        try! text.write(to: root.appendingPathComponent(lesson), atomically: true, encoding: .utf8)
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
let saved = root.appendingPathComponent(".build/try-it-results.json")
switch arguments.first {
case "run":
    // In the order asked for (`run 06 05` measures lesson 6 first), or every lesson in order.
    let wanted = arguments.dropFirst()
    let files = wanted.isEmpty
        ? lessonFiles() : wanted.flatMap { prefix in lessonFiles().filter { $0.hasPrefix("Lessons/\(prefix)") } }
    var results = (try? JSONDecoder().decode([Result].self, from: Data(contentsOf: saved))) ?? []
    for file in files {
        for (item, changes) in breaks(in: file) {
            let result = measure(item, changes)
            print("\(file), break \(item.ordinal), \(Int(result.seconds)) s: "
                + (result.failing.isEmpty ? "no test fails" : result.failing.joined(separator: ", ")))
            fflush(stdout)
            results.removeAll { $0.lesson == file && $0.ordinal == item.ordinal }
            results.append(result)
            try? FileManager.default.createDirectory(at: saved.deletingLastPathComponent(), withIntermediateDirectories: true)
            try! JSONEncoder().encode(results).write(to: saved)
            write([result])
        }
    }
case "check":
    let all = lessonFiles().flatMap(breaks(in:))
    for (item, changes) in all { _ = apply(item, changes) }
    print("try-it: all \(all.count) breaks apply")
case "write" where arguments.count == 2:
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: arguments[1])),
        let results = try? JSONDecoder().decode([Result].self, from: data)
    else { fail("\(arguments[1]) is not a results file this command wrote") }
    write(results)
default:
    fail("usage: swift scripts/try-it.swift run [LESSON…] | write RESULTS  (from the package root)")
}
