/// "Did you mean …": the word a learner may have meant by one the command
/// line does not know (a flag, a scenario, a command spelt a letter or two off).
public enum DidYouMean {
    /// The candidate closest to `word`, at most two letters off (and fewer
    /// than half its letters); nil when none is.
    public static func closest(to word: String, among candidates: [String]) -> String? {
        let word = word.lowercased()
        let scored = candidates.map { (candidate: $0, distance: editDistance($0.lowercased(), word)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }),
            best.distance <= 2, best.distance * 2 < max(word.count, 2)
        else { return nil }
        return best.candidate
    }

    /// Letters inserted, deleted or replaced to turn one word into the other.
    public static func editDistance(_ first: String, _ second: String) -> Int {
        let (a, b) = (Array(first), Array(second))
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var row = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = row
        }
        return previous[b.count]
    }
}

extension UsageError {
    /// A flag the command does not take, with the one of `flags` it is closest to.
    public static func unknownFlag(_ flag: String, among flags: [String]) -> UsageError {
        let meant = DidYouMean.closest(to: flag, among: flags)
        return UsageError("unknown flag \(flag)" + (meant.map { "; did you mean \($0)?" } ?? ""))
    }

    /// A scenario name that names none, with the one it is closest to.
    public static func unknownScenario(_ name: String) -> UsageError {
        let meant = DidYouMean.closest(to: name, among: Scenario.all.map(\.name))
        return UsageError("unknown scenario '\(name)'" + (meant.map { "; did you mean \($0)?" } ?? ""))
    }
}
