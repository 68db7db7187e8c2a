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

    /// Encoded JSON as it may be shown to a person: every invisible scalar left in it (Foundation's
    /// encoder escapes only C0 controls, so C1's CSI, bidirectional overrides, zero-width and
    /// line-separator characters pass through raw) written as its `\u` escape. Outside strings
    /// JSON is printable ASCII, so only strings change, and they mean the same to a parser.
    /// Every `--json` output that reaches a terminal goes through this.
    package static func escapingInvisibles(_ json: String) -> String {
        // The whitespace between tokens (a pretty-printed document's line breaks) stays.
        func needsEscape(_ scalar: Unicode.Scalar) -> Bool { scalar.isInvisible && scalar != "\n" && scalar != "\r" && scalar != "\t" }
        guard json.unicodeScalars.contains(where: needsEscape) else { return json }
        var result = ""
        result.reserveCapacity(json.utf8.count)
        for scalar in json.unicodeScalars {
            if needsEscape(scalar) {
                result += escaped(String(scalar))
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
