#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The keys of a JSON object's top level, as written: the decoder keeps one value per key and
/// drops the others without a word, so a request with `"command"` twice would be read as
/// whichever the decoder keeps. Called on a line the decoder has already accepted as an object.
enum JSONObjectKeys {
    /// The first key that appears twice at the top level (escapes decoded, so `"v"` and
    /// `"\u0076"` are the same key), or nil.
    static func firstDuplicate(in line: Data) -> String? {
        var seen: Set<String> = []
        var depth = 0
        var index = line.startIndex
        // After a top-level key's closing quote comes `:`; after a value, `,` or `}`. A string at
        // depth 1 is a key when it follows `{` or `,`.
        var expectingKey = false
        while index < line.endIndex {
            let byte = line[index]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                expectingKey = depth == 1 && byte == UInt8(ascii: "{")
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            case UInt8(ascii: ","):
                expectingKey = depth == 1
            case UInt8(ascii: "\""):
                let start = index
                index = line.index(after: index)
                while index < line.endIndex && line[index] != UInt8(ascii: "\"") {
                    if line[index] == UInt8(ascii: "\\") { index = line.index(after: index) }
                    if index < line.endIndex { index = line.index(after: index) }
                }
                guard index < line.endIndex else { return nil }
                if expectingKey {
                    expectingKey = false
                    let literal = line[start...index]
                    if let key = try? JSONDecoder().decode(String.self, from: literal), !seen.insert(key).inserted {
                        return key
                    }
                }
            default:
                break
            }
            index = line.index(after: index)
        }
        return nil
    }
}
