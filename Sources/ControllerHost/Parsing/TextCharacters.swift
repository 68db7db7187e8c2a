/// What a text file a person wrote may hold, byte by byte: the rule shared by board files and
/// scenarios, checked before either is parsed.
///
/// TOML permits no raw control character but tab anywhere — not in a comment, not in a string —
/// and line breaks are LF or CR LF. The rule matters beyond tidiness: a stray byte would reach
/// the names a board hands the kernel and the logs, or (as a lone CR) read as a line break in one
/// tool and not in another. The board files' TOML reader checks it first; a scenario is held to
/// the same rule so that both files read alike and a stray byte is named, never skipped.
package enum TextCharacters {
    /// Why a byte is refused, and where: 1-based line, and column in characters (as an editor
    /// counts them).
    package struct Refusal: Error, Equatable {
        package var line: Int
        package var column: Int
        package var reason: String
        package var hint: String
    }

    /// The first byte of `text` that a text file may not hold, or nil when every byte may stand.
    package static func check(_ text: String) -> Refusal? {
        var line = 1
        var column = 0
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if previous == carriageReturn && byte != lineFeed { return loneCarriageReturn(line: line, column: column) }
            previous = byte
            if isContinuation(byte) { continue }
            column += 1
            if byte == lineFeed {
                line += 1
                column = 0
            } else if isForbidden(byte) {
                return Refusal(
                    line: line, column: column, reason: "\(name(of: byte)) is a control character, which a text file may not hold",
                    hint: "remove it (an editor shows it as \(caret(of: byte)) or not at all); only tab and line breaks may stand")
            }
        }
        if previous == carriageReturn { return loneCarriageReturn(line: line, column: column) }
        return nil
    }

    /// Whether `byte` starts no character of its own: the 2nd to 4th byte of a UTF-8 sequence.
    package static func isContinuation(_ byte: UInt8) -> Bool { byte & 0xC0 == 0x80 }

    /// Every C0 control but tab, line feed and carriage return (checked with what follows it),
    /// and DEL: what TOML refuses outside a string's escapes.
    private static func isForbidden(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != tab && byte != carriageReturn) || byte == 0x7F
    }

    private static let tab = UInt8(ascii: "\t")
    private static let lineFeed = UInt8(ascii: "\n")
    private static let carriageReturn = UInt8(ascii: "\r")

    /// TOML takes a carriage return only as the start of CR LF.
    private static func loneCarriageReturn(line: Int, column: Int) -> Refusal {
        Refusal(line: line, column: column, reason: "a carriage return is not followed by a line feed",
                hint: "save the file with Unix (LF) or Windows (CR LF) line endings")
    }

    /// `a NUL byte (\0)`, `byte 0x1B (escape)`: the byte as a person looking for it needs it.
    private static func name(of byte: UInt8) -> String {
        switch byte {
        case 0: "a NUL byte (\\0)"
        case 0x1B: "byte 0x1B (escape)"
        case 0x7F: "byte 0x7F (delete)"
        default: "byte 0x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
        }
    }

    /// How terminals and editors write a control byte: `^@` for NUL, `^[` for escape, `^?` for DEL.
    private static func caret(of byte: UInt8) -> String {
        byte == 0x7F ? "^?" : "^" + String(Character(Unicode.Scalar(byte + 0x40)))
    }
}
