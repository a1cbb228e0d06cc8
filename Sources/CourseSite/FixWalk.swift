import Foundation

/// A file the fix changes: its path before (nil: a new file) and after, relative to the package.
public struct ChangedFile: Sendable, Equatable {
    public let before: String?
    public let after: String
    public var name: String { (after as NSString).lastPathComponent }
}

/// One part of a fix, as the lesson's "The fix" section numbers it: `1. **The pool**, …`.
public struct FixPart: Sendable {
    public let number: Int
    /// The bold words that open the item.
    public let title: String
    /// The whole item, as Markdown.
    public let text: String
    /// What finds the part's first change in the diff: the `<!-- code steps` comment's lines for this part, else
    /// the item's code spans.
    public let anchors: [String]
}

/// One `@Code` step: a changed file after the parts up to and including this one.
public struct CodeStep: Sendable {
    public let part: FixPart
    public let file: ChangedFile
    /// The file's lines after this part (the step before's lines with this and every earlier part applied).
    public let lines: [String]
    /// The file's lines before this part.
    public let previousLines: [String]
    /// The lines this part adds or changes, numbered from 1 in `lines`: what the code pane highlights.
    public let highlighted: [Int]
    /// The anchor that placed the part in this file (nil: the file is a part of its own, or its lines follow an
    /// anchored one).
    public let anchor: String?
}

/// The fix of one step, walked a part at a time over the real diff of its files: each line the diff adds goes to
/// the part whose anchor claims it, and applying the parts one by one turns the step before's files into this
/// step's, each intermediate file a real one that a test compiles.
public struct FixWalk: Sendable {
    public let files: [ChangedFile]
    public let parts: [FixPart]
    public let steps: [CodeStep]
    /// Parts whose anchors were found in no change of the diff: they get no code step, and a test says so.
    public let unplaced: [FixPart]

    /// The walk of `document`'s fix, reading the files under `root`; `fallback` is the pair of folders to diff
    /// when "The fix" names no `diff -u` (the step before's and this step's).
    public init(document: LessonDocument, root: URL, fallback: (before: String, after: String)?) throws {
        let fix = document.section("The fix") ?? []
        var files = try Self.changedFiles(in: fix, root: root)
        if files.isEmpty, let fallback {
            files = try Self.expand(before: fallback.before, after: fallback.after, root: root)
        }
        self.files = files
        let overrides = Self.anchorOverrides(document.comment(named: "code steps"))
        var parts = Self.numberedParts(fix, overrides: overrides)
        // Every line the diff adds, file by file in the order of the diff commands.
        let contents = try files.map { file in
            (old: try file.before.map { try Self.lines(root, $0) } ?? [], new: try Self.lines(root, file.after))
        }
        let blocks = contents.map { lineChanges(from: $0.old, to: $0.new) }
        let added = blocks.enumerated().flatMap { file, fileBlocks in
            fileBlocks.flatMap { block in block.new.map { AddedLine(file: file, line: $0) } }
        }
        let placed = Self.claims(of: parts, added: added, contents: contents, overrides: overrides)
        var owner = Self.claimedOwners(added, placed.claims, fileCount: files.count)
        for file in files.indices {
            let lines = added.filter { $0.file == file }.map(\.line)
            guard !lines.isEmpty else { continue }
            if owner[file].isEmpty {
                parts.append(Self.partOfItsOwn(files[file], in: fix, number: parts.count + 1))
                for line in lines { owner[file][line] = parts.count - 1 }
            } else {
                Self.giveUnclaimedLines(lines, in: contents[file].new, to: &owner[file])
            }
        }
        self.parts = parts
        self.unplaced = placed.unplaced
        steps = Self.codeSteps(parts, files, blocks, contents, owner, anchorsFound: placed.anchorsFound)
    }

    /// A line the diff adds: its file's index in the walk and its index in that file's new lines.
    private struct AddedLine {
        let file: Int
        let line: Int
    }

    /// Lines a part claims in a file.
    private struct Claim {
        let file: Int
        let lines: ClosedRange<Int>
        let part: Int
    }

    /// The fix's numbered items that open with bold words, each a part with its anchors.
    private static func numberedParts(_ fix: [MarkdownBlock], overrides: [Int: [String]]) -> [FixPart] {
        var parts: [FixPart] = []
        for case .list(true, let items) in fix {
            for item in items where item.hasPrefix("**") {
                let title = item.dropFirst(2).components(separatedBy: "**").first ?? ""
                let number = parts.count + 1
                parts.append(
                    FixPart(
                        number: number, title: title.trimmingCharacters(in: CharacterSet(charactersIn: " .:,")),
                        text: item, anchors: overrides[number] ?? item.codeSpans))
            }
        }
        return parts
    }

    /// A part claims each line that holds one of its anchors, and, when that line opens a brace and everything up
    /// to the one that closes it is new, all of those lines: a nested part's claim is inside, and wins. The search
    /// for a part's code spans starts where the part before it was found, so common words find the right line;
    /// the anchors a text's `code steps` comment gives are exact, and found anywhere.
    private static func claims(
        of parts: [FixPart], added: [AddedLine], contents: [(old: [String], new: [String])],
        overrides: [Int: [String]]
    ) -> (claims: [Claim], anchorsFound: [Int: [(file: Int, line: Int, anchor: String)]], unplaced: [FixPart]) {
        var claims: [Claim] = []
        var anchorsFound: [Int: [(file: Int, line: Int, anchor: String)]] = [:]
        var unplaced: [FixPart] = []
        var cursor = 0
        for (index, part) in parts.enumerated() {
            var found: [(position: Int, anchor: String)] = []
            for anchor in part.anchors {
                // `queue.addOperation { … }`: the words before the ellipsis are the line.
                let wanted = collapsed(anchor.components(separatedBy: "…")[0])
                guard !wanted.isEmpty else { continue }
                if let position = added.indices.dropFirst(overrides[part.number] == nil ? cursor : 0).first(where: {
                    collapsed(contents[added[$0].file].new[added[$0].line]).contains(wanted)
                }) {
                    found.append((position, anchor))
                }
            }
            guard let first = found.map(\.position).min() else {
                if !part.anchors.isEmpty || !parts.allSatisfy({ $0.anchors.isEmpty }) { unplaced.append(part) }
                continue
            }
            cursor = max(cursor, first)
            for (position, anchor) in found {
                let (file, line) = (added[position].file, added[position].line)
                let new = contents[file].new
                let end = braceEnd(new, from: line)
                let isAdded = { (next: Int) in added.contains { $0.file == file && $0.line == next } }
                let whole = (line...end).allSatisfy(isAdded)
                // New comment lines just above the line say what it does: they come with it.
                var start = line
                while start > 0, isAdded(start - 1),
                    new[start - 1].trimmingCharacters(in: .whitespaces).hasPrefix("//")
                {
                    start -= 1
                }
                claims.append(Claim(file: file, lines: start...(whole ? end : line), part: index))
                anchorsFound[index, default: []].append((file, line, anchor))
            }
        }
        return (claims, anchorsFound, unplaced)
    }

    /// Each added line's part where a claim holds it: the innermost claim.
    private static func claimedOwners(_ added: [AddedLine], _ claims: [Claim], fileCount: Int) -> [[Int: Int]] {
        var owner: [[Int: Int]] = Array(repeating: [:], count: fileCount)
        for added in added {
            if let claim = claims.filter({ $0.file == added.file && $0.lines.contains(added.line) }).max(by: {
                $0.lines.lowerBound < $1.lines.lowerBound
            }) {
                owner[added.file][added.line] = claim.part
            }
        }
        return owner
    }

    /// A file no part claims (a new file of a library, or a walk without numbered parts): a part of its own.
    private static func partOfItsOwn(_ file: ChangedFile, in fix: [MarkdownBlock], number: Int) -> FixPart {
        let title = file.before == nil ? "New: \(file.name)" : "The changes to \(file.name)"
        let about = sentence(about: file.name, in: fix)
        return FixPart(number: number, title: title, text: about.map { "**\(title).** " + $0 } ?? "", anchors: [])
    }

    /// The part of each added line no claim holds: (a new comment) the part of the claimed line below it, else the
    /// part of the added line before it in its file, else of the one after it.
    private static func giveUnclaimedLines(_ lines: [Int], in new: [String], to owner: inout [Int: Int]) {
        // A comment the diff adds speaks of the code below it: it goes with the next line a part claims, unless
        // new code no part claims comes first.
        var next: Int? = nil
        for line in lines.reversed() {
            let text = new[line].trimmingCharacters(in: .whitespaces)
            if let known = owner[line] {
                next = known
            } else if text.hasPrefix("//") {
                owner[line] = next
            } else if !text.isEmpty {
                next = nil
            }
        }
        var last: Int? = nil
        for line in lines {
            if let known = owner[line] { last = known } else if let last { owner[line] = last }
        }
        let firstKnown = lines.compactMap { owner[$0] }.first!
        for line in lines where owner[line] == nil { owner[line] = firstKnown }
    }

    /// The parts applied in order, one code step per part and file it changes.
    private static func codeSteps(
        _ parts: [FixPart], _ files: [ChangedFile], _ blocks: [[ChangeBlock]],
        _ contents: [(old: [String], new: [String])], _ owner: [[Int: Int]],
        anchorsFound: [Int: [(file: Int, line: Int, anchor: String)]]
    ) -> [CodeStep] {
        var steps: [CodeStep] = []
        for (index, part) in parts.enumerated() {
            for file in files.indices where owner[file].values.contains(index) {
                let before = apply(blocks[file], contents[file], owner[file], upTo: index - 1)
                let after = apply(blocks[file], contents[file], owner[file], upTo: index)
                let highlighted = after.added.filter { owner[file][$0.newLine] == index }.map { $0.line + 1 }
                let anchor = anchorsFound[index]?.first { $0.file == file }?.anchor
                steps.append(
                    CodeStep(
                        part: part, file: files[file], lines: after.lines, previousLines: before.lines,
                        highlighted: highlighted, anchor: anchor))
            }
        }
        return steps
    }

    /// A file after the parts up to `last`: each added line comes with its own part, and a change block's old
    /// lines go with the last part that adds a line of the block (a block that only deletes, with the part of
    /// the line before it): so a part that adds a guard above code a later part replaces keeps that code whole.
    /// Also where each added line landed (`line`, from 0) and which line of the new file it is.
    private static func apply(
        _ blocks: [ChangeBlock], _ content: (old: [String], new: [String]), _ owner: [Int: Int], upTo last: Int
    ) -> (lines: [String], added: [(line: Int, newLine: Int)]) {
        var lines: [String] = []
        var added: [(Int, Int)] = []
        var cursor = 0
        var previousOwner = owner.values.min() ?? 0
        for block in blocks {
            lines += content.old[cursor..<block.old.lowerBound]
            let owners = block.new.compactMap { owner[$0] }
            for line in block.new where (owner[line] ?? Int.max) <= last {
                added.append((lines.count, line))
                lines.append(content.new[line])
            }
            if (owners.max() ?? previousOwner) > last { lines += content.old[block.old] }
            previousOwner = owners.last ?? previousOwner
            cursor = block.old.upperBound
        }
        lines += content.old[cursor...]
        return (lines, added)
    }

    /// The line that closes the brace `line` opens (its own index when it opens none). Braces in string literals
    /// and after `//` are not counted.
    static func braceEnd(_ lines: [String], from line: Int) -> Int {
        var depth = 0
        for index in line..<lines.count {
            var inString = false
            var previous: Character = " "
            for character in lines[index] {
                if character == "\"", previous != "\\" { inString.toggle() }
                if !inString {
                    if character == "/", previous == "/" { break }
                    if character == "{" { depth += 1 }
                    if character == "}" { depth -= 1 }
                }
                previous = character
            }
            if depth <= 0 { return index }
        }
        return line
    }

    /// The files of every `diff -u A B` in the fix's shell blocks; a folder pair gives each `.swift` file that differs.
    static func changedFiles(in fix: [MarkdownBlock], root: URL) throws -> [ChangedFile] {
        var files: [ChangedFile] = []
        for case .code("sh", let text) in fix {
            for line in text.components(separatedBy: "\n") {
                let words = line.split(separator: " ").map(String.init)
                guard words.count >= 4, words[0] == "diff", words[1] == "-u" else { continue }
                files += try expand(before: words[2], after: words[3], root: root)
            }
        }
        return files
    }

    static func expand(before: String, after: String, root: URL) throws -> [ChangedFile] {
        guard !after.hasSuffix(".swift") else {
            return [ChangedFile(before: before == "/dev/null" ? nil : before, after: after)]
        }
        let manager = FileManager.default
        let names = Set(
            try manager.contentsOfDirectory(atPath: root.appendingPathComponent(after).path)
                + ((try? manager.contentsOfDirectory(atPath: root.appendingPathComponent(before).path)) ?? [])
        ).filter { $0.hasSuffix(".swift") }.sorted()
        let changed: [ChangedFile] = try names.compactMap { name in
            let old = before + "/" + name
            let new = after + "/" + name
            guard manager.fileExists(atPath: root.appendingPathComponent(new).path) else { return nil }
            let oldExists = manager.fileExists(atPath: root.appendingPathComponent(old).path)
            if oldExists, try lines(root, old) == lines(root, new) { return nil }
            return ChangedFile(before: oldExists ? old : nil, after: new)
        }
        // A new file first: the changes to the others use it.
        return changed.filter { $0.before == nil } + changed.filter { $0.before != nil }
    }

    /// The first list item or paragraph of the fix with a code span naming `file` (`ImageDownloader` or
    /// `ImageDownloader.swift`): what the text says of a file no numbered part claims.
    static func sentence(about file: String, in fix: [MarkdownBlock]) -> String? {
        let names = [file, (file as NSString).deletingPathExtension]
        let texts = fix.flatMap { block -> [String] in
            switch block {
            case .list(_, let items): return items
            case .paragraph(let text): return [text]
            default: return []
            }
        }
        return texts.first { !Set($0.codeSpans).isDisjoint(with: names) }
    }

    /// `N :: text` lines: the anchors of part N, any number of each.
    static func anchorOverrides(_ lines: [String]) -> [Int: [String]] {
        var anchors: [Int: [String]] = [:]
        for line in lines {
            let fields = line.components(separatedBy: " :: ")
            guard fields.count == 2, let number = Int(fields[0].trimmingCharacters(in: .whitespaces)) else { continue }
            anchors[number, default: []].append(fields[1].trimmingCharacters(in: .whitespaces))
        }
        return anchors
    }

    static func lines(_ root: URL, _ path: String) throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    static func collapsed(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }
}
