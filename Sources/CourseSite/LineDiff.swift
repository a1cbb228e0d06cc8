/// One change between two versions of a file, with no context: lines `old` of the old file become lines `new` of
/// the new one (either may be empty: an insertion, a deletion).
public struct ChangeBlock: Sendable, Equatable {
    public let old: Range<Int>
    public let new: Range<Int>
}

/// The changes from one list of lines to another, the longest common subsequence kept: what `diff -U0` lists.
/// The files compared are a few hundred lines, so the quadratic table is small.
public func lineChanges(from old: [String], to new: [String]) -> [ChangeBlock] {
    let n = old.count
    let m = new.count
    // common[i][j]: the longest common subsequence of old[i...] and new[j...].
    var common = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
    for i in stride(from: n - 1, through: 0, by: -1) {
        for j in stride(from: m - 1, through: 0, by: -1) {
            common[i][j] = old[i] == new[j] ? common[i + 1][j + 1] + 1 : max(common[i + 1][j], common[i][j + 1])
        }
    }
    var blocks: [ChangeBlock] = []
    var i = 0
    var j = 0
    var start: (Int, Int)? = nil
    while i < n || j < m {
        if i < n, j < m, old[i] == new[j] {
            if let (oi, nj) = start { blocks.append(ChangeBlock(old: oi..<i, new: nj..<j)) }
            start = nil
            i += 1
            j += 1
            continue
        }
        if start == nil { start = (i, j) }
        if j < m, i == n || common[i][j + 1] >= common[i + 1][j] {
            j += 1
        } else {
            i += 1
        }
    }
    if let (oi, nj) = start { blocks.append(ChangeBlock(old: oi..<n, new: nj..<m)) }
    return slid(blocks, in: new)
}

/// Insertions moved to where they read as code: a function added after another one is found as `}`, a blank
/// line, `func f() {`… up to its last line, the old `}` taken as the new function's. Of the places an insertion
/// can slide to (its first line equal to the line after it), the first whose braces nest (never closing one they
/// did not open, ending where they began) wins, best one that ends with a blank line: so each added part is whole.
func slid(_ blocks: [ChangeBlock], in new: [String]) -> [ChangeBlock] {
    var blocks = blocks
    for index in blocks.indices where blocks[index].old.isEmpty && !blocks[index].new.isEmpty {
        var candidates = [blocks[index]]
        while let last = candidates.last, last.new.upperBound < new.count,
            new[last.new.lowerBound] == new[last.new.upperBound],
            index + 1 == blocks.count || blocks[index + 1].new.lowerBound > last.new.upperBound
        {
            candidates.append(
                ChangeBlock(old: (last.old.lowerBound + 1)..<(last.old.lowerBound + 1), new: last.new.map { $0 + 1 }.first!..<(last.new.upperBound + 1)))
        }
        let nested = candidates.filter { nests(new[$0.new]) }
        if let best = nested.first(where: { new[$0.new].last?.trimmingCharacters(in: .whitespaces) == "" })
            ?? nested.first
        {
            blocks[index] = best
        }
    }
    return blocks
}

/// Whether the braces of these lines nest: none closes before it opens, and all that open close.
func nests(_ lines: ArraySlice<String>) -> Bool {
    var depth = 0
    for line in lines {
        for character in line where character == "{" || character == "}" {
            depth += character == "{" ? 1 : -1
            if depth < 0 { return false }
        }
    }
    return depth == 0
}
