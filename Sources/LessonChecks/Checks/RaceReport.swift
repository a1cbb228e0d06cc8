import Foundation

/// One of Thread Sanitizer's reports, read for what raced: each access (read
/// or written, by which thread, at which line of the code under test), and
/// the line that allocated the memory. The variable is read from the
/// learner's own lines, so a verdict names only what their code has.
/// Reports come in the order the threads met, which differs from run to run, and an async function's first
/// part has no line: the report read is the first whose two accesses both have their lines.
struct RaceReport {
    struct Access {
        let written: Bool
        /// "thread T7", or "main thread".
        let thread: String
        /// "Tests/Fixtures/…/File.swift:141:22": the first frame in the code under test.
        let place: String?
        /// The access's frames pass through the main queue's work: the scenario's turns, or what the app put
        /// there, which the Dispatch seam runs in a frame of its own.
        let onMainQueue: Bool
        /// The access's frames pass through `OperationQueue`'s running of an operation (`Self.runsAnOperation`).
        let inOperation: Bool
    }

    let accesses: [Access]
    /// Where the raced memory was allocated in the code under test.
    let allocatedAt: String?
    /// The threads this report shows running the main queue's work.
    let mainQueueThreads: Set<String>

    /// Nil when `errors` holds no report with two accesses in the code under test.
    init?(errors: String, codeFolders: [String]) {
        let read = Self.reports(in: errors).lazy.compactMap { Self(report: $0, codeFolders: codeFolders) }
        guard let chosen = read.first(where: \.namesItsLines) ?? read.first else { return nil }
        self = chosen
    }

    /// Each report's lines, from its warning to its summary, in the order TSan wrote them.
    private static func reports(in errors: String) -> [ArraySlice<String>] {
        let lines = errors.split(separator: "\n").map(String.init)
        return lines.indices.filter { lines[$0].contains("WARNING: ThreadSanitizer:") }.map { start in
            lines[(start + 1)...].prefix { !$0.hasPrefix("SUMMARY: ThreadSanitizer") }
        }
    }

    /// Whether both accesses were placed at a line, not only in a file.
    private var namesItsLines: Bool { accesses.allSatisfy { $0.place?.contains(/\.swift:\d+/) == true } }

    private init?(report: ArraySlice<String>, codeFolders: [String]) {
        // "  Previous write of size 1 at 0x… by thread T7:",
        // "  Modifying access of Swift variable at 0x… by main thread:".
        let header =
            #/^  (Previous )?(.+?) (?:of size \d+|of Swift variable) at 0x[0-9a-f]+ by (main thread|thread T\d+)/#
        let allocation = #/^  Location is .* (?:allocated )?by (main thread|thread T\d+)/#
        var blocks: [(kind: String?, thread: String, frames: [String])] = []
        for line in report {
            if let match = line.firstMatch(of: header) {
                blocks.append((String(match.2).lowercased(), String(match.3), []))
            } else if let match = line.firstMatch(of: allocation) {
                blocks.append((nil, String(match.1), []))
            } else if line.hasPrefix("  ") && !line.hasPrefix("    ") {
                blocks.append((nil, "", []))  // Another block (a thread's creation): not read.
            } else if line.hasPrefix("    #"), !blocks.isEmpty {
                blocks[blocks.count - 1].frames.append(line)
            }
        }
        let place = { (frames: [String]) in Self.firstPlace(in: frames, codeFolders: codeFolders) }
        let onMain: ([String]) -> Bool = { frames in
            frames.contains {
                $0.contains("Sources/LessonKit/Engine/ScenarioRunner.swift") || $0.contains(" seam_main_queue_work ")
            }
        }
        accesses = blocks.filter { $0.kind != nil }.map { block in
            Access(
                written: block.kind!.contains("write") || block.kind!.contains("modifying"), thread: block.thread,
                place: place(block.frames), onMainQueue: onMain(block.frames),
                inOperation: block.frames.contains(where: Self.runsAnOperation))
        }
        let allocationBlock = blocks.first { $0.kind == nil && !$0.thread.isEmpty }
        allocatedAt = allocationBlock.flatMap { place($0.frames) }
        mainQueueThreads = Set(blocks.filter { !$0.thread.isEmpty && onMain($0.frames) }.map(\.thread))
        guard accesses.count == 2, accesses.allSatisfy({ $0.place != nil }) else { return nil }
    }

    /// Whether `frame` is Foundation running an operation. TSan's stack of an access holds the instrumented
    /// functions (the app's) and the place each was called from, nothing of libFoundation in between: an
    /// `Operation` subclass's `main()` is called from `OperationQueue._execute`, a `BlockOperation`'s block from
    /// a reabstraction thunk that TSan, with no debug information, puts in the wrong object file
    /// (`$sIegh_ytIeghr_TRTA AffineTransform.swift.o (libFoundation.so+…)`). Every thunk of that name in
    /// libFoundation is `BlockOperation`'s; the app's and the harness's modules have thunks of that name for
    /// closures of every kind, so only libFoundation's counts.
    static func runsAnOperation(_ frame: String) -> Bool {
        frame.contains("OperationQueueC8_execute")
            || (frame.contains(" $sIegh_ytIeghr_TRTA") && frame.contains("(libFoundation.so+"))
    }

    /// Where the first report's first access is in the code under test: its
    /// first frame there, as a Swift access race's summary names only the
    /// compiler-generated accessor (`/<compiler-generated> in $s…vM`).
    /// The report read is the one `init` reads, when it reads one: its first access's place, never the line that
    /// allocated the memory.
    static func firstPlace(errors: String, codeFolders: [String]) -> String? {
        if let race = RaceReport(errors: errors, codeFolders: codeFolders), let place = race.accesses.first?.place {
            return place
        }
        guard let report = reports(in: errors).first else { return nil }
        // The first access's own frames: past them come the other access and where the memory was allocated.
        let firstAccess = report.dropFirst().prefix { $0.hasPrefix("    ") }
        return firstPlace(in: firstAccess.filter { $0.hasPrefix("    #") }, codeFolders: codeFolders)
            ?? firstPlace(in: report.filter { $0.hasPrefix("    #") }, codeFolders: codeFolders)
    }

    /// "Tests/Fixtures/…/File.swift:141:22" of the first of `frames` in `codeFolders` with a line: a property's
    /// observed setter (`willSet`/`didSet`) has none, and its caller's line says where it was set.
    private static func firstPlace(in frames: some Sequence<String>, codeFolders: [String]) -> String? {
        let places = frames.compactMap { frame in
            codeFolders.lazy.compactMap { frame.range(of: $0) }.first.map {
                String(frame[$0.lowerBound...].prefix { $0 != " " })
            }
        }
        return places.first { $0.contains(/\.swift:\d+/) } ?? places.first
    }

    /// The variable both accesses touch, read from the learner's lines: its
    /// property alone (`image`) when the two lines reach it by other names
    /// (`photoRecord.image`, `photoDetails.image`); nil when their files do not
    /// have those lines, or the two lines name different properties.
    func variable(in code: LearnerCode?) -> String? {
        let names = accesses.map { access in
            access.place.flatMap { Self.touched(at: $0, in: code, reading: !access.written) }
        }
        let named = names.compactMap { $0 }
        guard let first = named.first, named.count == names.count else { return nil }
        if named.allSatisfy({ $0 == first }) { return first }
        let properties = Set(named.map { $0.split(separator: ".").last.map(String.init) ?? $0 })
        return properties.count == 1 ? properties.first : nil
    }

    /// Whether what raced is the bug's own shape, a cache or pool: a dictionary
    /// the learner's files declare as a stored property, written off the main
    /// queue. Unknown (false) without the files or the variable's name.
    func racedOnADictionary(in code: LearnerCode?) -> Bool {
        guard let code, let variable = variable(in: code),
            accesses.contains(where: { $0.written && !ranOnMainQueue($0) })
        else { return false }
        return StoredProperty.declared(variable, in: code, owner: allocatedType(in: code))?.isDictionary == true
    }

    /// The verdict's title for a race on anything but a cache, said in the
    /// learner's words: "a data race on `record.state` (of an `IconRecord`)".
    func title(in code: LearnerCode?) -> String {
        guard let variable = variable(in: code) else { return "a data race on what the lines below share" }
        return "a data race on `\(variable)`\(ofType(in: code))"
    }

    /// "`record.state` (of an `IconRecord`) read on the main queue (thread T4) at …:107:23 and written by
    /// thread T7, in an operation, at …:141:22, with nothing ordering the two".
    func sentence(in code: LearnerCode?) -> String {
        let variable = variable(in: code)
        let type = ofType(in: code)
        let said = accesses.map { access in
            "\(access.written ? "written" : "read") \(on(access)) at \(access.place!)"
        }
        return (variable.map { "`\($0)`\(type) " } ?? "memory\(type) ")
            + said.joined(separator: " and ") + ", with nothing ordering the two"
    }

    /// What to ask of the code, naming the variable and the two lines; `remedy`, how to make it one thread's.
    func hint(in code: LearnerCode?, remedy: String = RaceCheck.mainQueueRemedy) -> String {
        let what = variable(in: code).map { "`\($0)`" } ?? "what these lines touch"
        // Two accesses at one place, or in one file TSan gave no line of, are one place to look at.
        var lines: [String] = []
        for place in accesses.compactMap(\.place) {
            let line = place.split(separator: "/").last.map(String.init) ?? place
            if !lines.contains(where: { $0.hasPrefix(line) }) {
                lines.append(line + (Self.part(at: place, in: code).map { " (\($0))" } ?? ""))
            }
        }
        let question =
            accesses.allSatisfy(\.written)
            ? "On which threads does your code write \(what)?"
            : "On which queue does your code write \(what), and on which does it read it?"
        return question + " " + remedy + " Look at \(lines.joined(separator: " and "))."
    }

    private func on(_ access: Access) -> String {
        if access.thread == "main thread" { return "on the main thread" }
        if mainQueueThreads.contains(access.thread) { return "on the main queue (\(access.thread))" }
        return "by \(access.thread)" + (access.inOperation ? ", in an operation," : "")
    }

    /// One of the two accesses ran on the main queue.
    var touchedOnTheMainQueue: Bool { accesses.contains(where: ranOnMainQueue) }

    private func ranOnMainQueue(_ access: Access) -> Bool {
        access.thread == "main thread" || mainQueueThreads.contains(access.thread)
    }

    /// What the learner's line at `place` ("…/File.swift:141:22") is part of: "`IconLoader.join(…)`".
    static func part(at place: String, in code: LearnerCode?) -> String? {
        let parts = place.split(separator: ":")
        guard parts.count >= 2, let number = Int(parts[1]), let name = parts[0].split(separator: "/").last,
            let text = code?.files[String(name)]
        else { return nil }
        return CodeOutline(text).part(atLine: number)
    }

    /// The type whose memory raced: the one the allocating line makes, else the one that declares the variable.
    func ownerType(in code: LearnerCode?) -> String? {
        allocatedType(in: code)
            ?? code.flatMap { code in
                variable(in: code).flatMap { StoredProperty.declared($0, in: code, owner: nil)?.owner }
            }
    }

    /// Whether the memory that raced is the table's controller's, the type that makes the rows' cells
    /// (`cellForRowAt`), as the cache bug's question presumes; false for a helper object's (a loader's).
    func racedInTheController(in code: LearnerCode?) -> Bool {
        guard let code, let owner = ownerType(in: code) else { return false }
        return code.files.values.contains { text in
            zip(CodeOutline(text).lines, text.split(separator: "\n", omittingEmptySubsequences: false)).contains {
                line, text in
                line.opens?.kind == .function && text.contains("cellForRowAt")
                    && line.within.last { $0.kind == .type }?.name == owner
            }
        }
    }

    /// The type whose object raced, when the allocating line is the learner's and makes one (`IconRecord(…)`).
    private func allocatedType(in code: LearnerCode?) -> String? {
        allocatedAt.flatMap { Self.touched(at: $0, in: code) }.flatMap { name in
            name.first?.isUppercase == true ? name : nil
        }
    }

    /// " (of an `IconRecord`)", or nothing when neither the allocation nor a declaration names the type.
    private func ofType(in code: LearnerCode?) -> String {
        guard let type = ownerType(in: code), let initial = type.first else { return "" }
        return " (of \("AEIOU".contains(initial) ? "an" : "a") `\(type)`)"
    }

    /// Every access at a line of `code` that `start`'s file of the same name has as it is (spacing aside): the
    /// race the starting code has, not one the learner's changes brought.
    /// A place TSan gave no line for (its frames had none) is the start's when its whole file is as the start had it.
    func racesAsIn(_ start: LearnerCode, from code: LearnerCode?) -> Bool {
        !accesses.isEmpty
            && accesses.allSatisfy { access in
                guard let place = access.place else { return false }
                if !place.contains(/\.swift:\d+/) {
                    let name = place.split(separator: "/").last.map(String.init) ?? place
                    return code?.files[name].map { $0 == start.files[name] } ?? false
                }
                guard let (file, line) = Self.line(at: place, in: code), let started = start.files[file]
                else { return false }
                let wanted = line.trimmingCharacters(in: .whitespaces)
                return !wanted.isEmpty
                    && started.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == wanted }
            }
    }

    /// The file name and the text of the line at `place` ("…/File.swift:141:22") in `code`.
    private static func line(at place: String, in code: LearnerCode?) -> (file: String, text: String)? {
        let parts = place.split(separator: ":")
        guard parts.count >= 2, let number = Int(parts[1]), let name = parts[0].split(separator: "/").last,
            let text = code?.files[String(name)]
        else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.indices.contains(number - 1) ? (String(name), String(lines[number - 1])) : nil
    }

    /// The name at `place` ("…/File.swift:141:22") in the learner's file of that name: the dotted name the column
    /// is in, else the first of the line before it, without `self.`. A read TSan points at an `=` is of what is
    /// assigned (`photoDetails.image` in `cell.imageView.image = photoDetails.image`), a write of what is written.
    static func touched(at place: String, in code: LearnerCode?, reading: Bool = false) -> String? {
        let parts = place.split(separator: ":")
        guard parts.count >= 3, let number = Int(parts[1]), let column = Int(parts[2]),
            let name = parts[0].split(separator: "/").last, let text = code?.files[String(name)]
        else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.indices.contains(number - 1) else { return nil }
        let line = Substring(lines[number - 1])
        var names: [(name: String, covers: Bool)] = []
        for match in line.matches(of: #/[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/#) {
            let first = line.utf8.distance(from: line.startIndex, to: match.range.lowerBound) + 1
            let last = line.utf8.distance(from: line.startIndex, to: match.range.upperBound)
            let enumCase =
                match.range.lowerBound > line.startIndex && line[line.index(before: match.range.lowerBound)] == "."
            guard first <= column, !enumCase, !keywords.contains(String(match.output)) else { continue }
            names.append((String(match.output), column <= last))
        }
        // Not in a name (TSan points a write at its `=`): what is assigned, else the line's first name, else what
        // a binding at the line's start reads.
        let chosen =
            names.first { $0.covers }?.name ?? (reading ? readByAssignment(at: column, in: line) : nil)
            ?? assigned(before: column, in: line) ?? names.first?.name ?? boundValue(in: line)
        return chosen.map { $0.hasPrefix("self.") ? String($0.dropFirst(5)) : $0 }
    }

    /// The name an assignment at `column` writes: the one just left of it, past its subscripts
    /// (`pictures` in `if let image { self?.pictures[app.icon] = image }`).
    private static func assigned(before column: Int, in line: Substring) -> String? {
        var left = Substring(line.utf8.prefix(max(0, column - 1)))
        while true {
            while left.last == " " { left = left.dropLast() }
            guard left.last == "]" else { break }
            var depth = 0
            var open: Substring.Index?
            for index in left.indices.reversed() {
                if left[index] == "]" { depth += 1 } else if left[index] == "[" { depth -= 1 }
                if depth == 0 {
                    open = index
                    break
                }
            }
            guard let open else { return nil }
            left = left[..<open]
        }
        return left.firstMatch(of: #/[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/#).map { String($0.output) }
    }

    /// What an assignment whose `=` is at `column` reads: the name just right of it.
    private static func readByAssignment(at column: Int, in line: Substring) -> String? {
        let utf8 = line.utf8
        guard column >= 1, column <= utf8.count,
            utf8[utf8.index(utf8.startIndex, offsetBy: column - 1)] == UInt8(ascii: "="),
            column == utf8.count || utf8[utf8.index(utf8.startIndex, offsetBy: column)] != UInt8(ascii: "=")
        else { return nil }
        let right = Substring(utf8.dropFirst(column))
        return right.firstMatch(of: #/^\s*([A-Za-z_][A-Za-z0-9_]*(?:\??\.[A-Za-z_][A-Za-z0-9_]*)*)/#).map {
            $0.output.1.replacingOccurrences(of: "?.", with: ".")
        }
    }

    /// The name a binding starting the line reads: `imageCache` in `if let image = imageCache[app.icon] {`, whose
    /// read TSan points at its `if`.
    private static func boundValue(in line: Substring) -> String? {
        let binding = #/
            ^\s*(?:(?:if|guard|while)\ )?(?:let|var)\ [A-Za-z_][A-Za-z0-9_]*\s*(?::[^=]*)?=\s*
            ([A-Za-z_][A-Za-z0-9_]*(?:\??\.[A-Za-z_][A-Za-z0-9_]*)*)
            /#
        return line.firstMatch(of: binding).map { $0.output.1.replacingOccurrences(of: "?.", with: ".") }
    }

    private static let keywords: Set<String> = [
        "switch", "if", "let", "var", "guard", "return", "case", "self", "else", "try", "await", "in", "for", "while",
    ]
}

/// A stored property as the learner's files declare it: the type that holds
/// it, and whether it holds a dictionary (`[String: Image]`, `Dictionary<…>`).
struct StoredProperty {
    let owner: String
    let isDictionary: Bool

    /// The declaration of `variable`'s last name (`state` of `record.state`)
    /// in a type's body: of `owner` when given and it has one, else the only
    /// one there is. Nil when no type declares it, or several do.
    static func declared(_ variable: String, in code: LearnerCode, owner: String?) -> StoredProperty? {
        let name = String(variable.split(separator: ".").last ?? Substring(variable))
        let found = code.files.sorted { $0.key < $1.key }.flatMap { declarations(of: name, in: $0.value) }
        if let owner, let own = found.first(where: { $0.owner == owner }) { return own }
        return found.count == 1 ? found[0] : nil
    }

    /// Every `var name`/`let name` directly in the body of a type (or an extension) in `text`.
    private static func declarations(of name: String, in text: String) -> [StoredProperty] {
        let outline = CodeOutline(text).lines
        return zip(outline, text.split(separator: "\n", omittingEmptySubsequences: false)).compactMap { line, text in
            guard let body = line.within.last, body.kind == .type, body.depth == line.depth,
                let type = declaredType(of: name, in: CodeOutline.code(of: text))
            else { return nil }
            return StoredProperty(owner: body.name, isDictionary: isDictionary(type))
        }
    }

    /// A `var` or `let` line: its name, and what follows it. Made once: a regex literal is parsed again each time
    /// it is reached, and this one is reached at every line a race's owner is looked for in.
    private nonisolated(unsafe) static let declaration =
        #/^\s*(?:@[A-Za-z]+ )*(?:[a-z]+(?:\([a-z]+\))? )*(?:var|let) ([A-Za-z_][A-Za-z0-9_]*)\s*(.*)$/#

    /// What `var name: T = …` or `var name = T()` says of its type, after the name; nil when the line declares
    /// no property of that name.
    private static func declaredType(of name: String, in line: Substring) -> Substring? {
        guard let match = line.firstMatch(of: declaration), match.1 == name else { return nil }
        return match.2.drop { $0 == ":" || $0 == "=" || $0 == " " }
    }

    /// `[Key: Value]` (a colon at the outer bracket's depth) or `Dictionary<…>`, as a type or as what makes one.
    private static func isDictionary(_ type: Substring) -> Bool {
        if type.hasPrefix("Dictionary<") { return true }
        guard type.first == "[" else { return false }
        var depth = 0
        for character in type {
            switch character {
            case "[", "(", "<": depth += 1
            case "]", ")", ">": depth -= 1
            case ":" where depth == 1: return true
            default: break
            }
            if depth == 0 { return false }
        }
        return false
    }
}
