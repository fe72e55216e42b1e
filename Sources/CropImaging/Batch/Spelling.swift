/// The nearest word to a misspelt one, for "did you mean" hints: of an
/// option, a subcommand, a schema or a manifest member.
public enum Spelling {
    /// The word of `candidates` nearest to `word`: one it starts, or one at
    /// most a third of its letters (and at least one) away.
    public static func closest(to word: String, among candidates: [String]) -> String? {
        if word.count >= 2, let prefix = candidates.first(where: { $0.hasPrefix(word) }) {
            return prefix
        }
        let scored = candidates.map { ($0, editDistance(word, $0)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return best.1 <= max(1, best.0.count / 3) ? best.0 : nil
    }

    /// The edit distance between two words, by characters: insertions,
    /// deletions, substitutions and swaps of two neighbours each count one
    /// (the optimal string alignment distance), so "angel" is one edit
    /// from "angle", as a typist sees it.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        for i in a.indices {
            var current = [i + 1]
            for j in b.indices {
                var cost = min(
                    previous[j + 1] + 1, current[j] + 1, previous[j] + (a[i] == b[j] ? 0 : 1))
                if i > 0, j > 0, a[i] == b[j - 1], a[i - 1] == b[j] {
                    cost = min(cost, before[j - 1] + 1)
                }
                current.append(cost)
            }
            before = previous
            previous = current
        }
        return previous[b.count]
    }
}
