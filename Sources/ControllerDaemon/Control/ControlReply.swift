#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ControllerHost

/// What the daemon answers a request with, or sends a follower.
public enum ControlReply: Sendable, Equatable {
    /// The answer to `status`.
    case status(DaemonSnapshot)
    /// The command was queued for the controller (it acts on it in order with its inputs); the
    /// text names what was queued, e.g. `repair` or `pulse coin`; `note`, when the command will
    /// not have the effect its sender may expect, says why (an `emergency off` while the fire
    /// line still holds the alarm).
    case accepted(String, note: String? = nil)
    /// The answer to `events`: the recent transitions, oldest first.
    case transitions([TransitionSummary])
    /// One transition as it happens, streamed to `events --follow`.
    case event(TransitionSummary)
    /// The request was refused.
    case failure(ControlFailure)
}

/// A refusal: a stable `code` for programs and a `message` that says what to do.
public struct ControlFailure: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public init(_ error: ControlProtocolError) {
        self.init(code: error.code, message: error.message)
    }

    public var description: String { message }
}

/// A reply with the `id` of the request it answers, as read by a client.
public struct ControlReplyLine: Sendable, Equatable {
    public var id: Int?
    public var reply: ControlReply

    public init(id: Int? = nil, reply: ControlReply) {
        self.id = id
        self.reply = reply
    }
}

extension ControlReplyLine {
    /// The reply as one JSON line, newline included. `daemon` is the daemon answering
    /// (`turnstiled`), as the refusal sent instead of a reply JSON cannot carry names it.
    public func encoded(daemon: String) -> [UInt8] {
        var wire = WireReply(v: ControlProtocol.version, id: id, ok: true)
        switch reply {
        case .status(let snapshot): wire.status = snapshot
        case .accepted(let what, let note):
            wire.accepted = what
            wire.note = note
        case .transitions(let transitions): wire.transitions = transitions
        case .event(let event): wire.event = event
        case .failure(let failure):
            wire.ok = false
            wire.error = failure
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // A snapshot with a non-finite number is the only thing JSON cannot carry; the client
        // then learns that, instead of the connection going silent.
        let data = (try? encoder.encode(wire))
            ?? (try? encoder.encode(WireReply(v: ControlProtocol.version, id: id, ok: false, error: ControlFailure(
                code: "internal", message: "\(daemon) could not encode its reply (a value JSON cannot carry); please report this"))))
            ?? Data()
        return Array(data) + [UInt8(ascii: "\n")]
    }

    /// Reads one reply line (without its newline), as `ctl` does; `daemon` is the program
    /// reading it, as its messages name it (`turnstiled`).
    public init(parsing line: some Collection<UInt8>, daemon: String) throws(ControlProtocolError) {
        let wire: WireReply
        do {
            wire = try JSONDecoder().decode(WireReply.self, from: Data(line))
        } catch {
            throw .malformedJSON
        }
        guard ControlProtocol.supportedVersions.contains(wire.v) else { throw .unsupportedVersion(found: "\(wire.v)", daemon: daemon) }
        id = wire.id
        if !wire.ok {
            reply = .failure(wire.error ?? ControlFailure(code: "unknown", message: "\(daemon) refused the request without saying why"))
        } else if let status = wire.status {
            reply = .status(status)
        } else if let accepted = wire.accepted {
            reply = .accepted(accepted, note: wire.note)
        } else if let transitions = wire.transitions {
            reply = .transitions(transitions)
        } else if let event = wire.event {
            reply = .event(event)
        } else {
            throw .missingField(name: "status, accepted, transitions or event", command: nil, expected: "a successful reply carries one of them")
        }
    }
}

/// The reply's JSON shape: `ok` and one payload field.
private struct WireReply: Codable {
    var v: Int
    var id: Int?
    var ok: Bool
    var status: DaemonSnapshot?
    var accepted: String?
    var note: String?
    var transitions: [TransitionSummary]?
    var event: TransitionSummary?
    var error: ControlFailure?
}

extension ControlRequestLine {
    /// The request as one JSON line, newline included, as `ctl` sends it.
    public func encoded() -> [UInt8] {
        var fields = ["\"v\":\(ControlProtocol.version)"]
        if let id { fields.append("\"id\":\(id)") }
        switch request {
        case .status: fields.append("\"command\":\"status\"")
        case .command(let event):
            switch ControlVocabulary<App>.command(sending: event) {
            case (let command, let on?)?: fields += ["\"command\":\(Self.json(command.name))", "\"on\":\(on)"]
            case (let command, nil)?: fields.append("\"command\":\(Self.json(command.name))")
            // Not one the daemon takes: sent by its name, for the daemon to refuse.
            case nil: fields.append("\"command\":\(Self.json(event.name))")
            }
        case .events(let follow): fields += ["\"command\":\"events\"", "\"follow\":\(follow)"]
        case .pulse(let role): fields += ["\"command\":\"pulse\"", "\"line\":\(Self.json(role.rawValue))"]
        case .level(let role, let on): fields += ["\"command\":\"set\"", "\"line\":\(Self.json(role.rawValue))", "\"on\":\(on)"]
        case .plant(let action): fields += ["\"command\":\"plant\"", "\"words\":\(Self.json(PlantWords<App>.text(action)))"]
        }
        return Array("{\(fields.joined(separator: ","))}\n".utf8)
    }

    /// `text` as a JSON string: declared names are plain words, but nothing here relies on it.
    private static func json(_ text: String) -> String {
        (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}
