import ControllerDaemon
import ControllerHost
import ControllerStore

/// Home Assistant's MQTT discovery for one node, in the device-based form (Home Assistant
/// 2024.11): one retained config on `DISCOVERY_PREFIX/device/NODE/config` holding the device
/// (`dev`), the origin (`o`: this runtime and its version), the node's availability, and every
/// entity under `cmps` with its platform (`p`): its state (an enum sensor of the innermost
/// states), a binary sensor per level or condition input, a `measurement` sensor per gauge, a `total_increasing` sensor per counted kind, an
/// event entity for the counted events, a button per direct command. Published on every
/// connection and again when Home Assistant's birth message (`DISCOVERY_PREFIX/status` =
/// `online`) arrives. The per-entity configs an earlier version published
/// (`DISCOVERY_PREFIX/COMPONENT/NODE/OBJECT/config`) are cleared with it (an empty retained
/// message each): the entities come back from the device config under the same unique ids and
/// entity ids, so their history goes on.
///
/// Every identity is injective (``SiteIdentity``): NODE is the site's prefix and the node id
/// together, escaped (`nodes/gate.1` → `nodes_2fgate_2e1`, `nodes/gate_1` → `nodes_2fgate__1`);
/// OBJECT (a component's key under `cmps`) is the entity's kind and its escaped name (`state`,
/// `events`, `gauge-credit`, `total-coins`, `button-emergency_20on`); `unique_id` is
/// `controllerfsm.NODE.OBJECT` and the device's identifier `controllerfsm.NODE`. So two nodes,
/// one node under two prefixes, or two names that differ only in punctuation never share a
/// config, an entity or a device.
///
/// The keys are the full names Home Assistant documents (no abbreviations but the device form's
/// own `dev`, `o`, `cmps` and `p`), so the messages read as its documentation does.
/// `default_entity_id` (Home Assistant 2025.10; it replaced `object_id`, which stops working in
/// 2026.4) is the entity id Home Assistant gives the entity when it first sees it: `COMPONENT.`
/// and the node id and the entity's name in lowercase words joined by `_`, then 12 hex digits of
/// a hash of the unique id, so it is a valid entity id (lowercase letters, digits, single `_`)
/// and still differs for every entity.
package struct SiteDiscovery<App: ControllerApplication> {
    /// What Home Assistant publishes on `PREFIX/status` when it starts.
    package static var birthPayload: String { "online" }
    /// The first word of every `unique_id` and device identifier.
    package static var namespace: String { "controllerfsm" }

    package let prefix: String
    package let topics: SiteTopics
    /// The runtime's version, for the device's and the origin's `sw_version`.
    package var version = RuntimeVersion.text

    package var statusTopic: String { "\(prefix)/status" }

    package init(prefix: String, topics: SiteTopics) {
        self.prefix = prefix
        self.topics = topics
    }

    /// The topic level naming the node: the site's prefix and the node id, escaped (Home
    /// Assistant's ids take letters, digits, `_` and `-`).
    package var nodeLevel: String { SiteIdentity.escaped("\(topics.prefix)/\(topics.node)", keeping: SiteIdentity.isWordByte) }

    /// The device's identifier.
    package var deviceIdentifier: String { "\(Self.namespace).\(nodeLevel)" }

    /// The device config's topic.
    package var deviceTopic: String { "\(prefix)/device/\(nodeLevel)/config" }

    package struct Device: Encodable, Equatable {
        var identifiers: [String]
        var name: String
        var model: String
        var manufacturer: String
        var sw_version: String
    }

    package struct Origin: Encodable, Equatable {
        var name: String
        var sw_version: String
    }

    /// The device config: the device, the origin, the availability every entity shares, and
    /// the entities by their object level.
    package struct DeviceConfig: Encodable {
        var dev: Device
        var o: Origin
        var availability_topic: String
        var payload_available = SitePayload.online
        var payload_not_available = SitePayload.offline
        var cmps: [String: Config]
    }

    /// One entity's config, under `cmps`.
    package struct Config: Encodable {
        var p: String
        var name: String
        var unique_id: String
        var default_entity_id: String
        var state_topic: String?
        var value_template: String?
        var device_class: String?
        var state_class: String?
        var options: [String]?
        var json_attributes_topic: String?
        var json_attributes_template: String?
        var event_types: [String]?
        var command_topic: String?
        var payload_press: String?
        var payload_on: String?
        var payload_off: String?
        var payload_open: HomeAssistantCommand?
        var payload_close: HomeAssistantCommand?
        var payload_stop: HomeAssistantCommand?
        var state_open: String?
        var state_opening: String?
        var state_closed: String?
        var state_closing: String?
        var entity_category: String?
        var icon: String?

        /// The command keys Home Assistant gives a default when they are left out, by platform
        /// (``HomeAssistantCommand``): a new platform with such keys is added here, and every
        /// entity of it states them.
        static func defaultedCommands(of platform: String) -> [WritableKeyPath<Config, HomeAssistantCommand?>] {
            switch platform {
            case "cover": [\.payload_open, \.payload_close, \.payload_stop]
            default: []
            }
        }

        /// Each of its platform's defaulted command keys left out, stated null: a control the
        /// node has no request for is not shown.
        mutating func stateDefaultedCommands() {
            for key in Self.defaultedCommands(of: p) where self[keyPath: key] == nil {
                self[keyPath: key] = HomeAssistantCommand.none
            }
        }
    }

    /// One entity: its component and its object level.
    package struct Entity {
        var component: String
        var object: String
        var config: Config
    }

    package var deviceConfig: DeviceConfig {
        DeviceConfig(
            dev: Device(identifiers: [deviceIdentifier], name: topics.node, model: App.name, manufacturer: "ControllerFSM (\(App.daemonName))", sw_version: version),
            o: Origin(name: "ControllerFSM", sw_version: version),
            availability_topic: topics.availability,
            cmps: Dictionary(uniqueKeysWithValues: entities.map { ($0.object, $0.config) }))
    }

    /// Every discovery message, retained: the device config, then an empty payload on each
    /// per-entity topic of the earlier form (clearing what an earlier version left).
    package var messages: [(topic: String, payload: [UInt8])] {
        [(deviceTopic, SitePayload.encode(deviceConfig))]
            + entities.map { ("\(prefix)/\($0.component)/\(nodeLevel)/\($0.object)/config", []) }
    }

    /// What retires the node from Home Assistant: an empty retained device config.
    package var retirement: (topic: String, payload: [UInt8]) { (deviceTopic, []) }

    package var entities: [Entity] { entities(hints: App.homeAssistant) }

    package func entities(hints: HomeAssistantHints<App>) -> [Entity] {
        func entity(_ component: String, _ kind: String, _ name: String?, title: String) -> Entity {
            let object = Self.objectLevel(kind: kind, name: name)
            let uniqueID = "\(deviceIdentifier).\(object)"
            let config = Config(
                p: component, name: title, unique_id: uniqueID,
                default_entity_id: Self.defaultEntityID(component: component, node: topics.node, name: name ?? kind, uniqueID: uniqueID))
            return Entity(component: component, object: object, config: config)
        }
        let innermost = App.table.atomicStates
        var entities: [Entity] = []
        var state = entity("sensor", "state", nil, title: "State")
        state.config.state_topic = topics.state
        state.config.value_template = "{{ value_json.state }}"
        state.config.device_class = "enum"
        // The innermost states: what the state topic reports (a superstate is around one).
        state.config.options = innermost.map(\.name)
        // The whole configuration, every region's, as the sensor's `active` attribute.
        state.config.json_attributes_topic = topics.state
        state.config.json_attributes_template = "\(Self.activeStates){{ {'active': active} | tojson }}"
        entities.append(state)
        func names(_ states: [App.State]) -> String { states.map { DiscoveryText.templateString($0.name) }.joined(separator: ", ") }
        if !hints.faultStates.isEmpty {
            var problem = entity("binary_sensor", "problem", nil, title: "Problem")
            problem.config.state_topic = topics.state
            problem.config.value_template = "\(Self.activeStates){{ 'ON' if \(Self.anyActive(names(hints.faultStates))) else 'OFF' }}"
            problem.config.device_class = "problem"
            problem.config.payload_on = "ON"
            problem.config.payload_off = "OFF"
            entities.append(problem)
        }
        // A cover is opened (and closed, and stopped) by direct commands: one the node does not
        // take is no cover. What it has no command for is null (stated below).
        let commandEvents = ControlVocabulary<App>.commands.compactMap { command -> App.Event? in
            if case .event(let event) = command { return event }
            return nil
        }
        if let cover = hints.cover, commandEvents.contains(cover.open),
            [cover.close, cover.stop].allSatisfy({ $0.map(commandEvents.contains) ?? true }) {
            var entity = entity("cover", "cover", nil, title: App.name.prefix(1).uppercased() + App.name.dropFirst())
            entity.config.device_class = cover.deviceClass
            entity.config.command_topic = topics.command
            entity.config.payload_open = .request(DiscoveryText.request(cover.open.name))
            entity.config.payload_close = cover.close.map { .request(DiscoveryText.request($0.name)) }
            entity.config.payload_stop = cover.stop.map { .request(DiscoveryText.request($0.name)) }
            entity.config.state_topic = topics.state
            // Open, opening or closing while one of its states is active (in any region, a
            // superstate too); closed otherwise.
            entity.config.value_template = Self.activeStates
                + "{{ 'open' if \(Self.anyActive(names(cover.openStates))) else 'opening' if \(Self.anyActive(names(cover.opening))) "
                + "else 'closing' if \(Self.anyActive(names(cover.closing))) else 'closed' }}"
            entity.config.state_open = "open"
            entity.config.state_opening = "opening"
            entity.config.state_closed = "closed"
            entity.config.state_closing = "closing"
            entities.append(entity)
        }
        // Each level and condition input as a binary sensor: on while its line (or, for a
        // condition, a command) holds it.
        for input in App.inputs where input.binding.isLevel {
            let role = input.role.rawValue
            var sensor = entity("binary_sensor", "input", role, title: role)
            sensor.config.state_topic = topics.inputs
            sensor.config.value_template = "{{ 'ON' if value_json.levels[\(DiscoveryText.templateString(role))] else 'OFF' }}"
            sensor.config.payload_on = "ON"
            sensor.config.payload_off = "OFF"
            sensor.config.device_class = hints.inputDeviceClasses[input.role]
            entities.append(sensor)
        }
        for gauge in App.gauges {
            var sensor = entity("sensor", "gauge", gauge.name, title: gauge.name)
            sensor.config.state_topic = topics.state
            sensor.config.value_template = "{{ value_json.gauges[\(DiscoveryText.templateString(gauge.name))] | default(0) }}"
            sensor.config.state_class = "measurement"
            entities.append(sensor)
        }
        for kind in CountStore<App>.kinds {
            var counter = entity("sensor", "total", kind, title: kind)
            counter.config.state_topic = topics.counters
            counter.config.value_template = "{{ value_json.totals[\(DiscoveryText.templateString(kind))] | default(0) }}"
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
                entities.append(button(event.name, request: DiscoveryText.request(event.name)))
            case .condition(let role, _, _):
                for on in [true, false] {
                    entities.append(button("\(role.rawValue) \(on ? "on" : "off")", request: DiscoveryText.request(role.rawValue, on: on)))
                }
            }
        }
        return entities.map { entity in
            var entity = entity
            entity.config.stateDefaultedCommands()
            return entity
        }
    }

    /// Sets `active` to the state message's every active state, of every region (its
    /// `active`; the first region's `state` alone in an earlier version's retained message).
    static var activeStates: String { "{% set active = value_json.active | default([value_json.state]) %}" }

    /// Whether one of `names` (template strings, comma-separated) is in `active`.
    static func anyActive(_ names: String) -> String { "active | select('in', [\(names)]) | list" }

    /// `state`, `events`; `gauge-credit`, `button-emergency_20on`: the kind (a word of
    /// lowercase letters) alone or with `-` and the escaped name, which keeps `-` but never
    /// gives the kind's first `-` a second meaning.
    package static func objectLevel(kind: String, name: String?) -> String {
        guard let name else { return kind }
        return "\(kind)-\(SiteIdentity.escaped(name, keeping: SiteIdentity.isWordByte))"
    }

    /// `sensor.gate_1_credit_0123456789ab`: see the type's description.
    package static func defaultEntityID(component: String, node: String, name: String, uniqueID: String) -> String {
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
