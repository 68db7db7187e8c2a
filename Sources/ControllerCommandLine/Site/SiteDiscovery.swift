import ControllerDaemon
import ControllerHost
import ControllerStore

/// Home Assistant's MQTT discovery for one node: a device with its state (an enum sensor), a
/// `measurement` sensor per gauge, a `total_increasing` sensor per counted kind, an event entity for the counted events, a button
/// per direct command, all with the node's availability. Published retained under
/// `DISCOVERY_PREFIX/COMPONENT/NODE/OBJECT/config` on every connection and again when Home
/// Assistant's birth message (`DISCOVERY_PREFIX/status` = `online`) arrives.
///
/// Every identity is injective (``SiteIdentity``): NODE is the site's prefix and the node id
/// together, escaped (`nodes/gate.1` → `nodes_2fgate_2e1`, `nodes/gate_1` → `nodes_2fgate__1`);
/// OBJECT is the entity's kind and its escaped name (`state`, `events`, `gauge-credit`,
/// `total-coins`, `button-emergency_20on`); `unique_id` is `controllerfsm.NODE.OBJECT` and the
/// device's identifier `controllerfsm.NODE`. So two nodes, one node under two prefixes, or two
/// names that differ only in punctuation never share a config, an entity or a device.
///
/// The keys are the full names Home Assistant documents for each component (no abbreviations),
/// so the messages read as its documentation does. `default_entity_id` (Home Assistant 2025.10;
/// it replaced `object_id`, which stops working in 2026.4) is the entity id Home Assistant
/// gives the entity when it first sees it: `COMPONENT.` and the node id and the entity's name in
/// lowercase words joined by `_`, then 12 hex digits of a hash of the unique id, so it is a valid
/// entity id (lowercase letters, digits, single `_`) and still differs for every entity.
struct SiteDiscovery<App: ControllerApplication> {
    /// What Home Assistant publishes on `PREFIX/status` when it starts.
    static var birthPayload: String { "online" }
    /// The first word of every `unique_id` and device identifier.
    static var namespace: String { "controllerfsm" }

    let prefix: String
    let topics: SiteTopics

    var statusTopic: String { "\(prefix)/status" }

    /// The topic level naming the node: the site's prefix and the node id, escaped (Home
    /// Assistant's ids take letters, digits, `_` and `-`).
    var nodeLevel: String { SiteIdentity.escaped("\(topics.prefix)/\(topics.node)", keeping: SiteIdentity.isWordByte) }

    /// The device's identifier.
    var deviceIdentifier: String { "\(Self.namespace).\(nodeLevel)" }

    struct Device: Encodable, Equatable {
        var identifiers: [String]
        var name: String
        var model: String
        var manufacturer: String
    }

    struct Config: Encodable {
        var name: String
        var unique_id: String
        var default_entity_id: String
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

    /// One entity: its component and its object level.
    struct Entity {
        var component: String
        var object: String
        var config: Config
    }

    /// Every discovery message: topic and retained JSON payload.
    var messages: [(topic: String, payload: [UInt8])] {
        entities.map { ("\(prefix)/\($0.component)/\(nodeLevel)/\($0.object)/config", SitePayload.encode($0.config)) }
    }

    var entities: [Entity] {
        let device = Device(identifiers: [deviceIdentifier], name: topics.node, model: App.name, manufacturer: "ControllerFSM (\(App.daemonName))")
        func entity(_ component: String, _ kind: String, _ name: String?, title: String) -> Entity {
            let object = Self.objectLevel(kind: kind, name: name)
            let uniqueID = "\(deviceIdentifier).\(object)"
            let config = Config(
                name: title, unique_id: uniqueID,
                default_entity_id: Self.defaultEntityID(component: component, node: topics.node, name: name ?? kind, uniqueID: uniqueID),
                device: device, availability_topic: topics.availability)
            return Entity(component: component, object: object, config: config)
        }
        var entities: [Entity] = []
        var state = entity("sensor", "state", nil, title: "State")
        state.config.state_topic = topics.state
        state.config.value_template = "{{ value_json.state }}"
        state.config.device_class = "enum"
        // The innermost states: what the state topic reports (a superstate is around one).
        state.config.options = App.State.allCases.filter { !App.table.isSuperstate($0) && !App.table.isHistory($0) }.map(\.name)
        entities.append(state)
        for gauge in App.gauges {
            var sensor = entity("sensor", "gauge", gauge.name, title: gauge.name)
            sensor.config.state_topic = topics.state
            sensor.config.value_template = "{{ value_json.gauges['\(gauge.name)'] | default(0) }}"
            sensor.config.state_class = "measurement"
            entities.append(sensor)
        }
        for kind in CountStore<App>.kinds {
            var counter = entity("sensor", "total", kind, title: kind)
            counter.config.state_topic = topics.counters
            counter.config.value_template = "{{ value_json.totals['\(kind)'] | default(0) }}"
            counter.config.state_class = "total_increasing"
            counter.config.icon = "mdi:counter"
            entities.append(counter)
        }
        var events = entity("event", "events", nil, title: "Counted events")
        events.config.state_topic = topics.events
        events.config.event_types = CountStore<App>.kinds
        events.config.value_template = #"{"event_type": "{{ value_json.kind }}", "sequence": {{ value_json.sequence }}}"#
        entities.append(events)
        func button(_ name: String, request: String) -> Entity {
            var button = entity("button", "button", name, title: name)
            button.config.command_topic = topics.command
            button.config.payload_press = request
            return button
        }
        for command in ControlVocabulary<App>.commands {
            switch command {
            case .event(let event):
                entities.append(button(event.name, request: #"{"v":1,"command":"\#(event.name)"}"#))
            case .condition(let role, _, _):
                for on in [true, false] {
                    entities.append(button("\(role.rawValue) \(on ? "on" : "off")", request: #"{"v":1,"command":"\#(role.rawValue)","on":\#(on)}"#))
                }
            }
        }
        return entities
    }

    /// `state`, `events`; `gauge-credit`, `button-emergency_20on`: the kind (a word of
    /// lowercase letters) alone or with `-` and the escaped name, which keeps `-` but never
    /// gives the kind's first `-` a second meaning.
    static func objectLevel(kind: String, name: String?) -> String {
        guard let name else { return kind }
        return "\(kind)-\(SiteIdentity.escaped(name, keeping: SiteIdentity.isWordByte))"
    }

    /// `sensor.gate_1_credit_0123456789ab`: see the type's description.
    static func defaultEntityID(component: String, node: String, name: String, uniqueID: String) -> String {
        var words: [String] = []
        var word = ""
        for scalar in "\(node) \(name)".unicodeScalars {
            if scalar.isASCII, scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) {
                word.unicodeScalars.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
            } else if !word.isEmpty {
                words.append(word)
                word = ""
            }
        }
        if !word.isEmpty { words.append(word) }
        let hash = String(SiteIdentity.hex(SiteIdentity.hash([uniqueID])).prefix(12))
        return "\(component).\((words + [hash]).joined(separator: "_"))"
    }
}
