/// A product's board with the changes its checks.json lists for a check: each `"section.key":
/// value` (the value as TOML writes it: `"\"300ms\""`) replaces the line `key = ...` of
/// `[section]` (`inputs.coin.debounce`: `debounce` in `[inputs.coin]`). Every key must be found, so a renamed setting fails the check that relies on it
/// instead of running the check on the wrong board.
public enum BoardEdits {
    /// The board's text with each change made, and the changes not found (`[section] key`).
    public static func edited(_ text: String, _ edits: [String: String]) -> (text: String, missing: [String]) {
        var wanted: [String: String] = [:]
        for (name, value) in edits {
            // The key is after the last dot: a section's name may have dots of its own
            // (`inputs.coin.debounce` is `debounce` in `[inputs.coin]`); a key has none.
            if let dot = name.lastIndex(of: ".") {
                wanted["[\(name[..<dot])] \(name[name.index(after: dot)...])"] = value
            } else {
                wanted["[] \(name)"] = value
            }
        }
        var section = ""
        var done: Set<String> = []
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("["), let close = trimmed.firstIndex(of: "]") {
                section = trimmed[trimmed.index(after: trimmed.startIndex)..<close].trimmingSpaces()
                lines.append(line)
                continue
            }
            let key = String(trimmed.prefix { $0.isLetter || $0.isNumber || $0 == "_" })
            let rest = trimmed.dropFirst(key.count).drop { $0 == " " || $0 == "\t" }
            let name = "[\(section)] \(key)"
            if !key.isEmpty, rest.hasPrefix("="), let value = wanted[name] {
                lines.append("\(key) = \(value)")
                done.insert(name)
            } else {
                lines.append(line)
            }
        }
        return (lines.joined(separator: "\n"), wanted.keys.filter { !done.contains($0) }.sorted())
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
