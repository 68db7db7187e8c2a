/// What a binary is made of, by its symbol table: each symbol's bytes summed by where it comes
/// from — a Swift module, read from the mangled name (`$s<length><module>…`; the standard
/// library abbreviates itself as `$ss`/`$sS`), or, for C and C++, the symbol itself (ICU's data
/// file, for example, is one symbol `icudt*_dat`). scripts/size-check.sh prints the largest, so
/// a change that makes a daemon grow says where.
public enum SymbolSizes {
    /// How much of a C or C++ symbol's name names it.
    public static let shownNameCharacters = 48

    /// `nm --print-size --size-sort --radix=d`'s lines (address, size, type, name) summed by
    /// origin, largest first (ties by name).
    public static func contributors(nmOutput: String) -> [(origin: String, bytes: Int)] {
        var totals: [String: Int] = [:]
        for line in nmOutput.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 4, let size = Int(fields[1]) else { continue }
            totals[origin(of: String(fields[3])), default: 0] += size
        }
        return totals.map { (origin: $0.key, bytes: $0.value) }.sorted { ($0.bytes, $1.origin) > ($1.bytes, $0.origin) }
    }

    /// Where the symbol `name` comes from: `Swift module Turnstile`, `C icudt72_dat`, ….
    public static func origin(of name: String) -> String {
        if name.hasPrefix("$s"), let match = name.firstMatch(of: #/^\$s(\d+)/#), let length = Int(match.output.1) {
            let module = name[match.range.upperBound...].prefix(length)
            return "Swift module \(module)"
        }
        if name.hasPrefix("$ss") || name.hasPrefix("$sS") { return "Swift module Swift (standard library)" }
        return (name.hasPrefix("_Z") ? "C++ " : "C ") + name.prefix(shownNameCharacters)
    }
}
