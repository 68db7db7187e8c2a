import Foundation
import ControllerHost
import Turnstile

extension ControlRequestLine {
    /// Parses one request line (without its newline).
    ///
    /// Every input gives a request or a ``ControlProtocolError``: the line is bounded by
    /// ``ControlProtocol/maxRequestBytes`` before JSON sees it, and only the top level is decoded.
    public init(parsing line: some Collection<UInt8>) throws(ControlProtocolError) {
        self = try Self.parse(line).result.get()
    }

    /// The request, or why not, with the line's `id` whenever it could be read so that an error
    /// reply can still be matched to its request.
    static func parse(_ line: some Collection<UInt8>) -> (id: Int?, result: Result<ControlRequestLine, ControlProtocolError>) {
        guard line.count <= ControlProtocol.maxRequestBytes else {
            return (nil, .failure(.requestTooLong(limit: ControlProtocol.maxRequestBytes)))
        }
        let data = Data(line)
        let top: JSONField
        do {
            top = try JSONDecoder().decode(JSONField.self, from: data)
        } catch {
            return (nil, .failure(.malformedJSON))
        }
        guard top == .object, let fields = try? JSONDecoder().decode([String: JSONField].self, from: data) else {
            return (nil, .failure(top == .object ? .malformedJSON : .notAnObject(found: top.shown)))
        }
        var id: Int?
        if case .integer(let value)? = fields["id"], (0...ControlProtocol.maxRequestID).contains(value) { id = value }
        if let duplicate = JSONObjectKeys.firstDuplicate(in: data) { return (duplicate == "id" ? nil : id, .failure(.duplicateField(name: duplicate))) }
        do throws(ControlProtocolError) {
            return (id, .success(try ControlRequestLine(fields: fields)))
        } catch {
            return (id, .failure(error))
        }
    }

    private static let envelopeFields: Set<String> = ["v", "id", "command"]

    private init(fields: [String: JSONField]) throws(ControlProtocolError) {
        let versions = "a protocol version number, \"v\":\(ControlProtocol.version)"
        switch fields["v"] {
        case nil:
            throw .missingField(name: "v", command: nil, expected: versions)
        case .integer(let version)?:
            guard ControlProtocol.supportedVersions.contains(version) else { throw .unsupportedVersion(found: "\(version)") }
        case let other?:
            throw .invalidField(name: "v", found: other.shown, expected: versions)
        }
        switch fields["id"] {
        case nil: id = nil
        case .integer(let value)? where (0...ControlProtocol.maxRequestID).contains(value): id = value
        case let other?:
            throw .invalidField(name: "id", found: other.shown, expected: "a whole number from 0 to \(ControlProtocol.maxRequestID), echoed in the reply")
        }
        let commands = "one of \(ControlProtocol.commandNames.map { "\"\($0)\"" }.joined(separator: ", "))"
        let name: String
        switch fields["command"] {
        case nil: throw .missingField(name: "command", command: nil, expected: commands)
        case .string(let value)?: name = value
        case let other?: throw .invalidField(name: "command", found: other.shown, expected: commands)
        }
        let taken: Set<String>
        switch name {
        case "status":
            request = .status
            taken = []
        case "repair":
            request = .command(.repair)
            taken = []
        case "fault":
            request = .command(.fault)
            taken = []
        case "emergency":
            let on = try Self.bool("on", in: fields, command: name, required: true, meaning: "true while the fire alarm holds, false when it ends")
            request = .command(on == true ? .emergencyOn : .emergencyOff)
            taken = ["on"]
        case "events":
            let follow = try Self.bool("follow", in: fields, command: name, required: false, meaning: "true to keep receiving transitions as they happen")
            request = .events(follow: follow ?? false)
            taken = ["follow"]
        case "pulse":
            let roles = ControlRequest.pulseRoles.map(\.rawValue)
            let expected = "one of \(roles.map { "\"\($0)\"" }.joined(separator: ", ")) (the input line to pulse)"
            switch fields["line"] {
            case nil:
                throw .missingField(name: "line", command: name, expected: expected)
            case .string(let value)?:
                guard let role = InputRole(rawValue: value), ControlRequest.pulseRoles.contains(role) else {
                    let hint = value == InputRole.emergency.rawValue ? "the fire alarm is a level: send \"command\":\"emergency\" with \"on\"" : Suggestion.didYouMean(value, in: roles)
                    throw .invalidField(name: "line", found: JSONField.string(value).shown, expected: expected + (hint.map { "; \($0)" } ?? ""))
                }
                request = .pulse(role)
            case let other?:
                throw .invalidField(name: "line", found: other.shown, expected: expected)
            }
            taken = ["line"]
        default:
            throw .unknownCommand(name, hint: Suggestion.didYouMean(name, in: ControlProtocol.commandNames))
        }
        for key in fields.keys.sorted() where !Self.envelopeFields.contains(key) && !taken.contains(key) {
            let known = Self.envelopeFields.union(taken)
            throw .unknownField(name: key, command: name, hint: Suggestion.didYouMean(key, in: known))
        }
    }

    private static func bool(_ name: String, in fields: [String: JSONField], command: String, required: Bool, meaning: String) throws(ControlProtocolError) -> Bool? {
        switch fields[name] {
        case nil:
            if required { throw .missingField(name: name, command: command, expected: "true or false: \(meaning)") }
            return nil
        case .bool(let value)?:
            return value
        case let other?:
            throw .invalidField(name: name, found: other.shown, expected: "true or false: \(meaning)")
        }
    }
}
