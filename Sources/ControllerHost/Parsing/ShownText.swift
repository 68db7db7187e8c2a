/// The one path by which text from outside the process (MQTT payloads and topics, node ids,
/// control-socket requests, file contents, peer names, SQLite text) reaches a person: the
/// terminal, the log, a status line, an error's description, the status page.
///
/// Two sizes, one rule. A token quoted inside a message is ``StringProtocol/shown``; a whole
/// line at a sink is ``StringProtocol/shownLine``. Both escape every invisible or control
/// scalar (``Unicode/Scalar/isInvisible``: ESC, BEL, CR/LF, C1's CSI, bidirectional overrides,
/// zero-width characters) as `\u{1B}`, so no text can move the cursor, clear the screen, set
/// the title, reorder what follows or forge a line; and both are bounded by the characters
/// they write, escapes counted, so no text can bury the message. An escape is never cut in
/// half. Escaping is idempotent (an escape is visible text), so text already shown passes a
/// sink unchanged unless the line is too long.
extension StringProtocol {
    /// A token from outside, as a message quotes it (without the quotes): escaped, and at most
    /// ``Quoting/maxQuotedCharacters`` characters of escaped text, then `… (N bytes)`.
    package var shown: String { ShownText.render(self, limit: Quoting.maxQuotedCharacters, escaping: true) }

    /// A whole line as a sink writes it: escaped, and at most ``Quoting/maxLineCharacters``
    /// characters of escaped text, then `… (N bytes)`.
    package var shownLine: String { ShownText.render(self, limit: Quoting.maxLineCharacters, escaping: true) }
}

package enum ShownText {
    /// `text`, each invisible scalar escaped when `escaping`, cut after `limit` scalars of the
    /// result (never inside an escape), with `… (N bytes)` naming the full length when cut.
    package static func render(_ text: some StringProtocol, limit: Int, escaping: Bool) -> String {
        var result = ""
        var written = 0
        for scalar in text.unicodeScalars {
            if escaping, scalar.isInvisible {
                let escape = Self.escape(scalar)
                let size = escape.utf8.count  // ASCII: one scalar a byte
                guard written + size <= limit else { return cut(result, text) }
                result += escape
                written += size
            } else {
                guard written < limit else { return cut(result, text) }
                result.unicodeScalars.append(scalar)
                written += 1
            }
        }
        return result
    }

    /// `\0`, `\u{1B}`: an invisible scalar as visible text.
    package static func escape(_ scalar: Unicode.Scalar) -> String {
        scalar == "\0" ? "\\0" : "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
    }

    private static func cut(_ shown: String, _ text: some StringProtocol) -> String {
        shown + "… (\(text.utf8.count) bytes)"
    }
}
