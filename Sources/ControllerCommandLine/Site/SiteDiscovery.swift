import ControllerDaemon
import ControllerHost
import ControllerStore

/// Home Assistant's MQTT discovery for one node: a device with its state (an enum sensor), a
/// `measurement` sensor per gauge, a `total_increasing` sensor per counted kind, an event entity for the counted events, a button
/// per direct command, all with the node's availability. Published retained under
/// `DISCOVERY_PREFIX/COMPONENT/NODE/OBJECT/config` on every connection and again when Home
/// Assistant's birth message (`DISCOVERY_PREFIX/status` = `online`) arrives.
///
/// The keys are the full names Home Assistant documents for each component (no abbreviations),
/// so the messages read as its documentation does.
struct SiteDiscovery<App: ControllerApplication> {
    /// What Home Assistant publishes on `PREFIX/status` when it starts.
    static var birthPayload: String { "online" }

    let prefix: String
    let topics: SiteTopics

    var statusTopic: String { "\(prefix)/status" }

    /// Home Assistant's ids allow letters, digits, `_` and `-`.
    var nodeID: String { String(topics.node.map { $0 == "." ? "_" : $0 }) }

    struct Device: Encodable, Equatable {
        var identifiers: [String]
        var name: String
        var model: String
        var manufacturer: String
    }

    struct Config: Encodable {
        var name: String
        var unique_id: String
        var object_id: String
        var device: Device
        var availability_topic: String
        var payload_available = SitePayload.online
        var payload_not_available = SitePayload.offline
        var state_topic: String?
        var value_template: String?
        var device_class: String?
        var state_class: String?
        var options: [String]?
        var event_types: [String]?
        var command_topic: String?
        var payload_press: String?
        var entity_category: String?
        var icon: String?
    }

    /// Every discovery message: topic and retained JSON payload.
    var messages: [(topic: String, payload: [UInt8])] {
        let device = Device(
            identifiers: ["controllerfsm_\(nodeID)"], name: topics.node, model: App.name, manufacturer: "ControllerFSM (\(App.daemonName))")
        func config(_ object: String, name: String) -> Config {
            Config(
                name: name, unique_id: "\(device.identifiers[0])_\(object)", object_id: "\(nodeID)_\(object)", device: device,
                availability_topic: topics.availability)
        }
        var messages: [(String, Config)] = []
        var state = config("state", name: "State")
        state.state_topic = topics.state
        state.value_template = "{{ value_json.state }}"
        state.device_class = "enum"
        state.options = App.State.allCases.map(\.name)
        messages.append(("sensor", state))
        for gauge in App.gauges {
            var sensor = config(Self.objectID(gauge.name), name: gauge.name)
            sensor.state_topic = topics.state
            sensor.value_template = "{{ value_json.gauges['\(gauge.name)'] | default(0) }}"
            sensor.state_class = "measurement"
            messages.append(("sensor", sensor))
        }
        for kind in CountStore<App>.kinds {
            var counter = config(Self.objectID(kind), name: kind)
            counter.state_topic = topics.counters
            counter.value_template = "{{ value_json.totals['\(kind)'] | default(0) }}"
            counter.state_class = "total_increasing"
            counter.icon = "mdi:counter"
            messages.append(("sensor", counter))
        }
        var events = config("events", name: "Counted events")
        events.state_topic = topics.events
        events.event_types = CountStore<App>.kinds
        events.value_template = #"{"event_type": "{{ value_json.kind }}", "sequence": {{ value_json.sequence }}}"#
        messages.append(("event", events))
        for command in ControlVocabulary<App>.commands {
            switch command {
            case .event(let event):
                messages.append(("button", button(config, name: event.name, request: #"{"v":1,"command":"\#(event.name)"}"#)))
            case .condition(let role, _, _):
                for on in [true, false] {
                    let name = "\(role.rawValue) \(on ? "on" : "off")"
                    messages.append(("button", button(config, name: name, request: #"{"v":1,"command":"\#(role.rawValue)","on":\#(on)}"#)))
                }
            }
        }
        return messages.map { component, config in
            ("\(prefix)/\(component)/\(nodeID)/\(config.object_id)/config", SitePayload.encode(config))
        }
    }

    private func button(_ config: (String, String) -> Config, name: String, request: String) -> Config {
        var button = config(Self.objectID(name), name)
        button.command_topic = topics.command
        button.payload_press = request
        return button
    }

    /// `emergency on` → `emergency_on`.
    static func objectID(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" })
    }
}
