/// "Did you mean" for misspelt names, so a typo in a board or scenario file gets pointed at its
/// fix instead of only being refused.
package enum Suggestion {
    /// The candidate closest to `word`, if it is close enough to be a plausible typo.
    ///
    /// Case is ignored when measuring (`outoforder` → `outOfOrder`), and the allowance grows with
    /// the word's length so that short names do not suggest unrelated ones.
    static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
        let target = Array(word.lowercased())
        let allowance = max(1, target.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in candidates.sorted() {
            // The lengths alone set a lower bound: a word far longer than any name (a 15 MB
            // token) is no typo of one, and is not compared character by character.
            if abs(candidate.count - target.count) > allowance { continue }
            let distance = editDistance(target, Array(candidate.lowercased()))
            if distance <= allowance, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.name
    }

    /// `did you mean "x"?`, or nil when nothing is close.
    package static func didYouMean(_ word: String, in candidates: some Sequence<String>) -> String? {
        closest(to: word, in: candidates).map { "did you mean \"\($0)\"?" }
    }

    /// Levenshtein distance with one rolling row.
    private static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = Array(repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

extension Sequence<String> {
    /// `"a", "b", "c"` — for "is not one of …" messages.
    var quotedList: String { map { "\"\($0)\"" }.joined(separator: ", ") }
}

extension Array<String> {
    /// `a, b or c` (with `conjunction` "or"), as a sentence lists; one item alone as it is.
    func listed(_ conjunction: String) -> String {
        count > 1 ? dropLast().joined(separator: ", ") + " \(conjunction) " + self[count - 1] : joined()
    }
}
