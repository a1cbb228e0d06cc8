import Foundation

/// What a crash of the code under test says, read from the Swift runtime's
/// backtrace on standard error: the fatal-error message, the first frame of
/// the crashed thread in the package's sources, what that line does, and
/// the course's advice when the crash is one it knows. Where it is not, the
/// diagnosis says what was seen and makes no guess.
public struct CrashDiagnosis: Sendable, Equatable {
    /// "Fatal error: Attempted to read an unowned reference…", when the runtime wrote one.
    public let message: String?
    /// "Workbench/Sources/Workbench/AppsViewController.swift:42:95 (function)", when the
    /// crashed thread's frames reach the sources: the learner's code first.
    public let place: String?
    /// Where the crashed thread was in the suite's own code, when that is the
    /// top of its frames in the package (the learner's code, if any, called
    /// it): said as the suite's, never as theirs.
    public let harnessPlace: String?
    /// What the crash is, in a sentence.
    public let reading: String
    /// What to do about it; nil when the crash is not one the course knows.
    public let hint: String?

    /// Reads `errors` (standard error of the crashed process); `root` is the
    /// package folder, where the line at `place` is looked up.
    public init(errors: String, signal: Int32?, root: URL) {
        self.init(
            errors: errors, signal: signal, code: LearnerCode.read(root.appendingPathComponent(WorkbenchLayout.code))
        ) { Self.line(at: $0, root: root) }
    }

    /// The same, the line at `place` looked up in the learner's files (a Thread Sanitizer run's crash).
    init(errors: String, signal: Int32?, code: LearnerCode?) {
        self.init(errors: errors, signal: signal, code: code) { place in code.flatMap { Self.line(at: place, in: $0) } }
    }

    private init(errors: String, signal: Int32?, code learners: LearnerCode?, lineAt: (String) -> String?) {
        let written = errors.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let lines = Self.sanitizersStackAsBacktrace(written) ?? written
        message = lines.first { $0.contains("Fatal error:") }.map { line in
            String(line[line.range(of: "Fatal error:")!.lowerBound...])
        }
        if let waiter = Self.syncOntoItsOwnQueue(lines) {
            // The suite's Dispatch seam passes the call on: the deadlock is the learner's, at their `sync`.
            place =
                WorkbenchDiagnostics.crashPlace(lines)
                ?? learners.flatMap { Self.firstLine(containing: Self.mainSync, in: $0) }
            harnessPlace = nil
            reading =
                "`DispatchQueue.main.sync` called from code the main queue runs (\(waiter)): the main queue would "
                + "wait for itself for ever, a deadlock, which Dispatch ends as a crash (on a phone too)"
            hint =
                "Code the main queue runs is on the main queue already: do the work directly, without `sync`; from "
                + "another thread, hand it over with `DispatchQueue.main.async`."
            return
        }
        place = WorkbenchDiagnostics.crashPlace(lines)
        harnessPlace = WorkbenchDiagnostics.harnessPlace(lines)
        let code = place.flatMap(lineAt) ?? ""
        if let harnessPlace {
            // What the runtime said is of the suite's line, not the learner's: no advice for their code from it.
            let reached = place.map { "it crashed in the suite's \(harnessPlace), called from your \($0)" }
            reading =
                (reached ?? "the crashed thread never reached your code: it was in the suite's \(harnessPlace)")
                + ". A data race in your code can corrupt what the suite reads there; if your code shares nothing "
                + "between threads, it is the suite's bug: please report it"
            hint = nil
        } else {
            (reading, hint) = Self.read(message: message ?? "", code: code, signal: signal, in: learners)
        }
    }

    /// Where it crashed, in a phrase for a verdict: the learner's line, or
    /// the suite's said as the suite's, or that the backtrace does not say.
    public var crashedAt: String {
        if let harnessPlace { return "your program crashed in the suite's code (\(harnessPlace)), not in yours" }
        if let place { return "your program crashed at \(place)" }
        return "your program crashed (its backtrace does not reach your code)"
    }

    /// A crash once the story was over (its report handed over), said as
    /// that: what the network's shutdown failed then, a device would never
    /// have failed, so it is no scenario's verdict.
    public var afterTheStory: String {
        "it crashed after the story ended, which no verdict counts: \(crashedAt)" + (message.map { " (\($0))" } ?? "")
    }

    /// The whole diagnosis in one line, for a check's verdict.
    public var line: String {
        [message, (harnessPlace == nil ? place : nil).map { "at " + $0 }, reading, hint.map { "try: " + $0 }]
            .compactMap { $0 }
            .joined(separator: " · ")
    }

    /// The whole diagnosis in a few lines for the learner.
    public var summary: String {
        var lines: [String] = []
        if let message { lines.append(message) }
        lines.append(
            "where: "
                + (harnessPlace != nil
                    ? "not in your code"
                    : place ?? "not in the backtrace (the crashed thread's frames stop in the runtime)"))
        lines.append("what:  " + reading)
        if let hint { lines.append("try:   " + hint) }
        return lines.joined(separator: "\n")
    }

    private static func read(message: String, code: String, signal: Int32?, in learners: LearnerCode?) -> (
        String, String?
    ) {
        // The backtrace rarely reaches the closure: the learner's files say which `unowned` it can be.
        if message.contains("unowned reference"), learners?.capturesSelfUnowned == true,
            learners?.hasUnownedProperty == false
        {
            return (
                "a closure's `[unowned self]` used after the controller was freed (the controller left while a "
                    + "download still held that closure)",
                "Capture `[weak self]` instead: `self` reads nil once the controller is gone, and "
                    + "`guard let self else { return }` skips the rest."
            )
        }
        if message.contains("unowned reference") {
            return (
                "a call through an `unowned` reference after the object it pointed at was freed (the tutorials' "
                    + "`assign` delegate: the controller left while a download still held it)",
                "Hold the delegate `weak`: it reads nil once the controller is gone, and the call is skipped."
            )
        }
        if message.contains("Unexpectedly found nil") {
            return ("a force unwrap (`!`) of a value that was nil", "Unwrap with `if let` or `guard let` instead of `!`.")
        }
        if message.contains("Index out of range") {
            return ("an array index past its end", "Check the index against the array's `count` first.")
        }
        if code.contains("delegate") {
            return (
                "a call through `delegate` that crashed: if it is `unowned(unsafe)` (the tutorials' `assign`), it "
                    + "points at a controller that is gone",
                "Hold the delegate `weak`: it reads nil once the controller is gone."
            )
        }
        if code.contains("[") && code.contains("]") {
            return (
                "the line reads or writes through a subscript (a dictionary or an array): if download threads write "
                    + "that dictionary too, two threads at once corrupt it, the data race step \(ImageListChecks.raceFixedIn) fixes",
                "Touch the cache and the pool only inside `OperationQueue.main.addOperation { … }`."
            )
        }
        let how = signal.map { "signal \($0)" } ?? "a crash"
        return ("\(how), on a line that is none of the crashes the course knows: read the line above", nil)
    }

    /// The text of the line `place` ("Sources/…/File.swift:42:95 (function)") names.
    static func line(at place: String, root: URL) -> String? {
        let parts = place.prefix { $0 != " " }.split(separator: ":")
        guard parts.count >= 2, let number = Int(parts[1]),
            let text = try? String(contentsOf: root.appendingPathComponent(String(parts[0])), encoding: .utf8)
        else { return nil }
        return line(number, of: text)
    }

    /// The same, in the learner's file of that name.
    static func line(at place: String, in code: LearnerCode) -> String? {
        let parts = place.prefix { $0 != " " }.split(separator: ":")
        guard parts.count >= 2, let number = Int(parts[1]),
            let name = parts[0].split(separator: "/").last, let text = code.files[String(name)]
        else { return nil }
        return line(number, of: text)
    }

    private static func line(_ number: Int, of text: String) -> String? {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return number > 0 && lines.indices.contains(number - 1) ? String(lines[number - 1]) : nil
    }

    /// libdispatch's trap for a `sync` onto the queue the calling thread is running, which would wait for itself.
    static let waitForOwnQueue = "__DISPATCH_WAIT_FOR_QUEUE__"
    static let mainSync = "DispatchQueue.main.sync"

    /// When the crashed thread's top frame is Dispatch's deadlock trap: the function that called `sync` there
    /// ("tableView(_:cellForRowAt:)"), read from the frame below `DispatchQueue.sync`, or "its caller".
    static func syncOntoItsOwnQueue(_ lines: [String]) -> String? {
        guard let crashed = lines.firstIndex(where: { $0.hasPrefix("Thread ") && $0.hasSuffix(" crashed:") }) else {
            return nil
        }
        let frames = lines[(crashed + 1)...].drop { $0.isEmpty }.prefix { !$0.hasPrefix("Thread ") && !$0.isEmpty }
        guard frames.first?.contains(waitForOwnQueue) == true else { return nil }
        guard let sync = frames.firstIndex(where: { $0.contains("DispatchQueue.sync") }), sync + 1 < frames.endIndex,
            let symbol = frames[sync + 1].firstMatch(of: #/0x[0-9a-f]+ (.+?) \+ \d+ in /#)?.1
        else { return "its caller" }
        // "protocol witness for TableViewDataSource.tableView(_:cellForRowAt:) in conformance TableViewController"
        let called = symbol.replacing("protocol witness for ", with: "").split(separator: " in conformance ").first
        return called.map { String($0.split(separator: ".").last ?? $0) } ?? "its caller"
    }

    /// "Workbench/Sources/Workbench/File.swift:32": the first line of `code`, in file-name order, that has `text`
    /// in code, not in a comment.
    /// With `type`, only a line that declares that type (or extends it).
    static func firstLine(containing text: String, declaring type: String? = nil, in code: LearnerCode) -> String? {
        for name in code.files.keys.sorted() {
            let lines = code.files[name]?.split(separator: "\n", omittingEmptySubsequences: false) ?? []
            let inCode = { (line: Substring) in
                line.contains(text) && !line.drop { $0 == " " }.hasPrefix("//")
                    && (type.map { type in
                        line.contains(try! Regex("\\b(class|struct|enum|actor|extension) \(type)\\b")) } ?? true)
            }
            if let index = lines.firstIndex(where: inCode) {
                return "\(WorkbenchLayout.code)\(name):\(index + 1)"
            }
        }
        return nil
    }

    /// Thread Sanitizer's first line when it caught a crash itself (and exited
    /// with its report's status, not by the signal).
    public static let caughtBySanitizer = "ThreadSanitizer:DEADLYSIGNAL"

    /// What Thread Sanitizer writes when it catches a crash itself (its first
    /// line, then the crashed thread's frames as `#2 symbol
    /// /path/File.swift:11:22 (Module+0x…) (BuildId: …)`), in the shape of the
    /// Swift runtime's backtrace, so that one reader finds the learner's line in
    /// both. Nil when `lines` hold no such crash.
    static func sanitizersStackAsBacktrace(_ lines: [String]) -> [String]? {
        guard let caught = lines.firstIndex(of: caughtBySanitizer),
            let start = lines[caught...].firstIndex(where: { $0.contains("ERROR: ThreadSanitizer:") })
        else { return nil }
        let stack = lines[(start + 1)...].prefix { !$0.hasPrefix("SUMMARY: ThreadSanitizer") }
        let frames = stack.compactMap { line -> String? in
            let words = line.split(separator: " ")
            guard let number = words.first, number.hasPrefix("#"),
                let path = words.dropFirst(2).first(where: { $0.hasPrefix("/") })
            else { return nil }
            return "\(number.dropFirst()) at \(path)"
        }
        return lines[..<caught] + ["Thread 0 crashed:"] + frames
    }
}
