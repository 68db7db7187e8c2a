/// The text a discovery config carries that names something of the application's (a command,
/// a role, a state, a gauge, a counted kind): encoded, never interpolated raw, so whatever the
/// name, what Home Assistant sends or reads back is that name.
package enum DiscoveryText {
    /// A control protocol request for `command` (`{"command":"repair","v":1}`), as Home
    /// Assistant sends it: encoded, so any name reads back as itself.
    package static func request(_ command: String, on: Bool? = nil) -> String {
        struct Request: Encodable {
            var v = 1
            var command: String
            var on: Bool?
        }
        return String(decoding: SitePayload.encode(Request(command: command, on: on)), as: UTF8.self)
    }

    /// `name` as a string literal of Home Assistant's templates (Jinja): JSON's quoting, whose
    /// escapes (`\"`, `\\`, `\n`, `\u001b`) Jinja's string literals read as the same
    /// characters, so a role, a state, a gauge or a kind of any name is the key it names.
    package static func templateString(_ name: String) -> String {
        String(decoding: SitePayload.encode(name), as: UTF8.self)
    }
}
