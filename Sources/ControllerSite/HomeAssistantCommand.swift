/// A command key of a discovery config that Home Assistant fills in when it is left out: a
/// cover's `payload_open`, `payload_close` and `payload_stop` become `OPEN`, `CLOSE` and `STOP`
/// whenever it has a `command_topic`, and each is then a control it shows (its MQTT cover's
/// documentation; null removes the control). So such a key is always stated: the request the
/// node takes for it, or null.
package enum HomeAssistantCommand: Encodable, Equatable {
    /// The control sends this (a control protocol request, JSON).
    case request(String)
    /// The node takes no command for it: null, and Home Assistant shows no such control.
    case none

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .request(let payload): try container.encode(payload)
        case .none: try container.encodeNil()
        }
    }

    package var request: String? {
        if case .request(let payload) = self { return payload }
        return nil
    }
}
