/// The one writer of the JSON records the project prints by hand (the simulator's and the
/// daemon's `--json` lines): every key and every string value goes through ``JSONText/escaped(_:)``,
/// numbers are written from integers (or a duration as decimal seconds), so no text — a chip's
/// label, a role, a reason — can end a string early, forge a field or split the line. Fields come
/// out in the order added, `type` first, as docs/reference/commands.md gives them.
///
/// ```swift
/// let line = JSONLine(type: "ready").string("chip", label).int("originUnixNanoseconds", 0).text
/// ```
package struct JSONLine: Sendable {
    private var body: String

    /// A record whose first field is `"type": type`.
    package init(type: String) {
        body = ""
        body = string("type", type).body
    }

    /// An object with no field yet (a nested one: counters, a latency's figures).
    package init() { body = "" }

    private func adding(_ key: String, _ literal: String) -> JSONLine {
        var copy = self
        copy.body += (body.isEmpty ? "" : ",") + "\"" + JSONText.escaped(key) + "\":" + literal
        return copy
    }

    package func string(_ key: String, _ value: String) -> JSONLine { adding(key, "\"" + JSONText.escaped(value) + "\"") }

    package func int(_ key: String, _ value: some BinaryInteger) -> JSONLine { adding(key, String(value)) }

    /// `value` as 1 or 0: how the records give a line's level.
    package func level(_ key: String, _ value: Bool) -> JSONLine { adding(key, value ? "1" : "0") }

    /// `true` or `false`.
    package func bool(_ key: String, _ value: Bool) -> JSONLine { adding(key, value ? "true" : "false") }

    /// A duration as decimal seconds (`1.5`), as every record's `t` is.
    package func seconds(_ key: String, _ value: Duration) -> JSONLine { adding(key, value.secondsText) }

    package func object(_ key: String, _ value: JSONLine) -> JSONLine { adding(key, value.text) }

    /// An array of strings, each escaped.
    package func strings(_ key: String, _ values: [String]) -> JSONLine {
        adding(key, "[" + values.map { "\"" + JSONText.escaped($0) + "\"" }.joined(separator: ",") + "]")
    }

    /// An array of objects.
    package func objects(_ key: String, _ values: [JSONLine]) -> JSONLine {
        adding(key, "[" + values.map(\.text).joined(separator: ",") + "]")
    }

    /// The record, one line, without its line break.
    package var text: String { "{" + body + "}" }
}
