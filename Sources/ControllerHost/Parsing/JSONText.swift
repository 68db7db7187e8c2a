/// Text written into hand-made JSON lines (the simulator's `--json` records): escaped as JSON
/// requires, so that a name holding a quote, a backslash or a control character stays one string.
package enum JSONText {
    /// `text` as a JSON string's contents, without the quotes.
    package static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || scalar.isInvisible {
                    let hex = String(scalar.value, radix: 16)
                    // JSON's \u takes four hex digits; beyond the BMP, a surrogate pair.
                    if scalar.value > 0xFFFF {
                        let v = scalar.value - 0x10000
                        result += "\\u" + String(0xD800 + (v >> 10), radix: 16) + "\\u" + String(0xDC00 + (v & 0x3FF), radix: 16)
                    } else {
                        result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    }
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
