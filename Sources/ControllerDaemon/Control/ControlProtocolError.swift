import ControllerHost

/// Why a request line was refused. Each has a stable `code` for programs and a `message` that
/// says what to send instead.
public enum ControlProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line is not JSON (or not UTF-8).
    case malformedJSON
    /// The line is JSON but not an object (`[…]`, `"status"`, `1`).
    case notAnObject(found: String)
    /// The `v` field names a version `daemon` (the program reading it) does not speak.
    case unsupportedVersion(found: String, daemon: String)
    /// The `command` names none of `commands`; `hint` is "did you mean …?" for the nearest, if
    /// any is close.
    case unknownCommand(String, hint: String?, commands: [String])
    /// A field the command needs is absent.
    case missingField(name: String, command: String?, expected: String)
    /// A field has the wrong type or value.
    case invalidField(name: String, found: String, expected: String)
    /// A field the request's command does not take (or no command takes).
    case unknownField(name: String, command: String?, hint: String?)
    /// The line is longer than ``ControlProtocol/maxRequestBytes``.
    case requestTooLong(limit: Int)
    /// A field appears twice; which one would count is not for the decoder to guess.
    case duplicateField(name: String)

    /// A stable identifier for programs (`snake_case`).
    public var code: String {
        switch self {
        case .malformedJSON: "malformed_json"
        case .notAnObject: "not_an_object"
        case .unsupportedVersion: "unsupported_version"
        case .unknownCommand: "unknown_command"
        case .missingField: "missing_field"
        case .invalidField: "invalid_field"
        case .unknownField: "unknown_field"
        case .requestTooLong: "request_too_long"
        case .duplicateField: "duplicate_field"
        }
    }

    /// What went wrong and what to send instead.
    public var message: String {
        let example = "e.g. {\"v\":\(ControlProtocol.version),\"command\":\"status\"}"
        switch self {
        case .malformedJSON:
            return "the request is not valid JSON (or not UTF-8); send one JSON object per line, \(example)"
        case .notAnObject(let found):
            return "the request is \(found), not a JSON object; send one object per line, \(example)"
        case .unsupportedVersion(let found, let daemon):
            let supported = ControlProtocol.supportedVersions.map(String.init).joined(separator: ", ")
            return "protocol version \(found) is not supported; this \(daemon) speaks version \(supported) (\"v\":\(ControlProtocol.version)); are \(daemon) and the client from the same release?"
        case .unknownCommand(let name, let hint, let commands):
            let hint = hint.map { "\($0) " } ?? ""
            return "unknown command \(Self.shown(name)); \(hint)commands: \(commands.joined(separator: ", "))"
        case .missingField(let name, let command, let expected):
            let owner = command.map { "command \(Self.shown($0)) needs" } ?? "every request needs"
            return "\(owner) the field \"\(name)\": \(expected)"
        case .invalidField(let name, let found, let expected):
            return "the field \"\(name)\" is \(found); it must be \(expected)"
        case .unknownField(let name, let command, let hint):
            let hint = hint.map { "; \($0)" } ?? ""
            let owner = command.map { "command \(Self.shown($0)) takes no field" } ?? "requests have no field"
            return "\(owner) \(Self.shown(name))\(hint)"
        case .requestTooLong(let limit):
            return "the request is longer than \(limit) bytes; a request is one short JSON object on one line (the rest of this line was skipped)"
        case .duplicateField(let name):
            return "the field \(Self.shown(name)) appears more than once; give each field once"
        }
    }

    public var description: String { message }

    /// Text from a request, quoted, as every message quotes text from outside
    /// (``StringProtocol/shown``: escaped and bounded), so an error never puts raw control
    /// codes on the operator's terminal nor a 70 KB name in a reply.
    static func shown(_ text: String) -> String {
        "\"\(text.shown)\""
    }
}
