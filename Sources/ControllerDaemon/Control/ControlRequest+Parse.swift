#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControllerHost

extension ControlRequestLine {
    /// Parses one request line (without its newline).
    ///
    /// Every input gives a request or a ``ControlProtocolError``: the line is bounded by
    /// ``ControlProtocol/maxRequestBytes`` before JSON sees it, and only the top level is decoded.
    public init(parsing line: some Collection<UInt8>) throws(ControlProtocolError) {
        self = try Self.parse(line).result.get()
    }

    /// The reply to one request line, as the control socket gives it (and the MQTT command
    /// topic): `handler`'s answer to a request, or the error reply to a line that is not one,
    /// carrying the line's `id` whenever it could be read.
    /// - Returns: the reply; `malformed` when the line was no request; `follows` when it asked
    ///   for an event stream and was not refused.
    public static func answer(
        _ line: some Collection<UInt8>, handler: (ControlRequest<App>) -> ControlReply
    ) -> (reply: ControlReplyLine, malformed: Bool, follows: Bool) {
        let (id, parsed) = parse(line)
        switch parsed {
        case .failure(let error):
            return (ControlReplyLine(id: id, reply: .failure(ControlFailure(error))), true, false)
        case .success(let request):
            let reply = handler(request.request)
            let follows = if case .events(follow: true) = request.request { !reply.isFailure } else { false }
            return (ControlReplyLine(id: id, reply: reply), false, follows)
        }
    }

    /// The request, or why not, with the line's `id` whenever it could be read so that an error
    /// reply can still be matched to its request.
    static func parse(_ line: some Collection<UInt8>) -> (id: Int?, result: Result<Self, ControlProtocolError>) {
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
            return (id, .success(try Self(fields: fields)))
        } catch {
            return (id, .failure(error))
        }
    }

    private static var envelopeFields: Set<String> { ["v", "id", "command"] }

    private init(fields: [String: JSONField]) throws(ControlProtocolError) {
        let versions = "a protocol version number, \"v\":\(ControlProtocol.version)"
        switch fields["v"] {
        case nil:
            throw .missingField(name: "v", command: nil, expected: versions)
        case .integer(let version)?:
            guard ControlProtocol.supportedVersions.contains(version) else { throw .unsupportedVersion(found: "\(version)", daemon: App.daemonName) }
        case let other?:
            throw .invalidField(name: "v", found: other.shown, expected: versions)
        }
        switch fields["id"] {
        case nil: id = nil
        case .integer(let value)? where (0...ControlProtocol.maxRequestID).contains(value): id = value
        case let other?:
            throw .invalidField(name: "id", found: other.shown, expected: "a whole number from 0 to \(ControlProtocol.maxRequestID), echoed in the reply")
        }
        let names = ControlVocabulary<App>.commandNames
        let commands = "one of \(Self.quoted(names))"
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
        case "events":
            let follow = try Self.bool("follow", in: fields, command: name, required: false, meaning: "true to keep receiving transitions as they happen")
            request = .events(follow: follow ?? false)
            taken = ["follow"]
        case "pulse":
            request = .pulse(try Self.line(in: fields, command: name, roles: ControlVocabulary<App>.pulseRoles, purpose: "the input line to pulse"))
            taken = ["line"]
        case "plant" where !PlantWords<App>.usages.isEmpty:
            request = .plant(try Self.plantWords(in: fields))
            taken = ["words"]
        case "set" where !ControlVocabulary<App>.levelRoles.isEmpty:
            let role = try Self.line(in: fields, command: name, roles: ControlVocabulary<App>.levelRoles, purpose: "the level input to set")
            let on = try Self.bool("on", in: fields, command: name, required: true, meaning: "true to make the \(role) line active, false inactive")
            request = .level(role, on: on == true)
            taken = ["line", "on"]
        default:
            switch ControlVocabulary<App>.command(named: name) {
            case .event(let event)?:
                request = .command(event)
                taken = []
            case .condition(let role, let onEvent, let offEvent)?:
                let on = try Self.bool("on", in: fields, command: name, required: true, meaning: "true while the \(role) condition holds, false when it ends")
                request = .command(on == true ? onEvent : offEvent)
                taken = ["on"]
            case nil:
                throw .unknownCommand(name, hint: Suggestion.didYouMean(name, in: names), commands: names)
            }
        }
        for key in fields.keys.sorted() where !Self.envelopeFields.contains(key) && !taken.contains(key) {
            let known = Self.envelopeFields.union(taken)
            throw .unknownField(name: key, command: name, hint: Suggestion.didYouMean(key, in: known))
        }
    }

    /// The `line` field: one of `roles`. Another input's name is refused with how to drive
    /// that input instead.
    private static func line(in fields: [String: JSONField], command: String, roles: [RoleName], purpose: String) throws(ControlProtocolError) -> RoleName {
        let names = roles.map(\.rawValue)
        let expected = "one of \(quoted(names)) (\(purpose))"
        switch fields["line"] {
        case nil:
            throw .missingField(name: "line", command: command, expected: expected)
        case .string(let value)?:
            guard names.contains(value) else {
                let hint = otherLine(RoleName(value)) ?? Suggestion.didYouMean(value, in: names)
                throw .invalidField(name: "line", found: JSONField.string(value).shown, expected: expected + (hint.map { "; \($0)" } ?? ""))
            }
            return RoleName(value)
        case let other?:
            throw .invalidField(name: "line", found: other.shown, expected: expected)
        }
    }

    /// The `words` field: the simulated plant's action, in its scenario words (`arm stuck`).
    private static func plantWords(in fields: [String: JSONField]) throws(ControlProtocolError) -> App.Plant.Action {
        let expected = "the simulated plant's words, one of \(quoted(PlantWords<App>.usages))"
        switch fields["words"] {
        case nil:
            throw .missingField(name: "words", command: "plant", expected: expected)
        case .string(let value)?:
            switch PlantWords<App>.action(value, source: "words") {
            case .success(let action): return action
            case .failure(let error):
                throw .invalidField(name: "words", found: JSONField.string(value).shown, expected: expected + " (\(error.reason))")
            }
        case let other?:
            throw .invalidField(name: "words", found: other.shown, expected: expected)
        }
    }

    /// How to drive input `role` when the command given is not the one for it.
    private static func otherLine(_ role: RoleName) -> String? {
        guard let input = App.inputs.first(where: { $0.role == role }) else { return nil }
        let subject = ControlVocabulary<App>.subject(of: role)
        switch input.binding {
        case .pulse:
            return "\(subject) is a pulse: send \"command\":\"pulse\" with \"line\":\"\(role)\""
        case .level:
            // A line the simulated plant drives (the barrier's limit switches follow its arm) is
            // not one `set` takes: advising `set` would advise the request just refused.
            guard ControlVocabulary<App>.levelRoles.contains(role) else {
                return "\(subject) follows the simulated plant, not a command: no request drives it"
            }
            return "\(subject) is a level: send \"command\":\"set\" with \"line\":\"\(role)\" and \"on\""
        case .condition:
            guard ControlVocabulary<App>.command(named: role.rawValue) != nil else { return "\(subject) is a level only its line drives" }
            return "\(subject) is a level: send \"command\":\"\(role)\" with \"on\""
        }
    }

    private static func quoted(_ names: [String]) -> String { names.map { "\"\($0)\"" }.joined(separator: ", ") }

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
