@testable import ControllerSite
import ControllerDaemon
import ControllerHost
import Foundation
import Testing
import Turnstile

/// Home Assistant's device-based discovery, in-process: the device config checked key by key
/// against the schema Home Assistant documents for the device form (`dev`, `o`, `cmps`, shared
/// availability) and for each platform used (MQTT Sensor, Binary sensor, Event, Button, Cover;
/// full key names, as of 2025.10).
@Suite("Home Assistant device discovery")
struct SiteDiscoveryTests {
    static let discovery = SiteDiscovery<TurnstileApplication>(prefix: "homeassistant", topics: try! SiteTopics(prefix: "nodes", node: "node1"))

    /// The keys each platform documents, and those it requires (`p` is the device form's own).
    static let documentedKeys: [String: (all: Set<String>, required: Set<String>)] = {
        let common: Set<String> = [
            "p", "name", "unique_id", "default_entity_id", "entity_category", "icon", "enabled_by_default", "qos",
            "json_attributes_topic", "json_attributes_template", "availability_topic", "payload_available", "payload_not_available", "availability_mode",
            "availability_template",
        ]
        return [
            "sensor": (common.union(["state_topic", "value_template", "device_class", "state_class", "options", "unit_of_measurement",
                                     "expire_after", "force_update", "suggested_display_precision", "last_reset_value_template"]),
                       ["p", "state_topic"]),
            "binary_sensor": (common.union(["state_topic", "value_template", "device_class", "payload_on", "payload_off", "expire_after",
                                            "force_update", "off_delay"]), ["p", "state_topic"]),
            "event": (common.union(["state_topic", "value_template", "event_types", "device_class"]), ["p", "state_topic", "event_types"]),
            "button": (common.union(["command_topic", "payload_press", "command_template", "device_class", "retain"]), ["p", "command_topic"]),
            "cover": (common.union(["command_topic", "device_class", "payload_open", "payload_close", "payload_stop", "state_topic",
                                    "value_template", "state_open", "state_opening", "state_closed", "state_closing", "state_stopped",
                                    "optimistic", "retain", "position_topic", "set_position_topic"]), ["p"]),
        ]
    }()

    static func config(_ discovery: SiteDiscovery<TurnstileApplication>) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(SitePayload.encode(discovery.deviceConfig))) as? [String: Any])
    }

    @Test("one config on DISCOVERY/device/NODE/config: the device, the origin, the shared availability, the entities under cmps")
    func deviceConfig() throws {
        #expect(Self.discovery.deviceTopic == "homeassistant/device/nodes_2fnode1/config")
        let config = try Self.config(Self.discovery)
        #expect(Set(config.keys) == ["dev", "o", "cmps", "availability_topic", "payload_available", "payload_not_available"])
        let device = try #require(config["dev"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["controllerfsm.nodes_2fnode1"] && device["model"] as? String == "turnstile"
                && device["name"] as? String == "node1" && device["sw_version"] as? String == RuntimeVersion.text)
        #expect(Set(device.keys).isSubset(of: ["identifiers", "name", "model", "manufacturer", "sw_version", "hw_version", "serial_number", "connections", "configuration_url", "suggested_area", "via_device", "model_id"]))
        let origin = try #require(config["o"] as? [String: Any])
        #expect(origin["name"] as? String == "ControllerFSM" && Set(origin.keys).isSubset(of: ["name", "sw_version", "support_url"]))
        #expect(config["availability_topic"] as? String == "nodes/node1/availability")
        #expect(config["payload_available"] as? String == "online" && config["payload_not_available"] as? String == "offline")
    }

    @Test("every component checked against its platform's documented keys; counters total_increasing, the state an enum of the innermost states, broken a problem, the fire alarm a safety sensor")
    func components() throws {
        let components = try #require(try Self.config(Self.discovery)["cmps"] as? [String: [String: Any]])
        var platforms: [String: Int] = [:]
        for (object, component) in components {
            let platform = try #require(component["p"] as? String)
            platforms[platform, default: 0] += 1
            let schema = try #require(Self.documentedKeys[platform], "an undocumented platform: \(platform)")
            #expect(Set(component.keys).isSubset(of: schema.all), "\(object): undocumented keys \(Set(component.keys).subtracting(schema.all))")
            #expect(schema.required.isSubset(of: Set(component.keys)), "\(object): missing \(schema.required.subtracting(component.keys))")
            #expect(component["unique_id"] as? String == "controllerfsm.nodes_2fnode1.\(object)")
            switch (platform, object) {
            case ("sensor", "state"):
                #expect(component["device_class"] as? String == "enum" && component["options"] as? [String] == ["locked", "unlocked", "broken", "outOfOrder", "emergency"])
            case ("sensor", _) where object.hasPrefix("total-"):
                #expect(component["state_class"] as? String == "total_increasing" && component["state_topic"] as? String == "nodes/node1/counters")
            case ("binary_sensor", "input-emergency"):
                // The fire alarm: a condition input, on while its line or a command holds it.
                #expect(component["device_class"] as? String == "safety" && component["state_topic"] as? String == "nodes/node1/inputs")
                #expect(component["value_template"] as? String == #"{{ 'ON' if value_json.levels["emergency"] else 'OFF' }}"#)
                #expect(component["payload_on"] as? String == "ON" && component["payload_off"] as? String == "OFF")
            case ("binary_sensor", _):
                #expect(component["device_class"] as? String == "problem")
                #expect(component["value_template"] as? String == SiteDiscovery<TurnstileApplication>.activeStates + #"{{ 'ON' if active | select('in', ["broken"]) | list else 'OFF' }}"#)
            case ("event", _):
                #expect((component["event_types"] as? [String])?.contains("passages") == true && component["state_topic"] as? String == "nodes/node1/events")
            case ("button", _):
                #expect(component["command_topic"] as? String == "nodes/node1/command" && (component["payload_press"] as? String)?.hasPrefix(#"{"command":"#) == true)
            default: break
            }
        }
        #expect(platforms == ["sensor": 14, "binary_sensor": 2, "event": 1, "button": 4], "\(platforms)")
    }

    @Test("the earlier per-entity configs are cleared with an empty payload each; retiring the node clears the device config")
    func clearing() {
        let messages = Self.discovery.messages
        #expect(messages[0].topic == Self.discovery.deviceTopic && !messages[0].payload.isEmpty)
        #expect(messages.dropFirst().allSatisfy { $0.payload.isEmpty && $0.topic.hasPrefix("homeassistant/") && $0.topic.contains("/nodes_2fnode1/") })
        #expect(messages.dropFirst().contains { $0.topic == "homeassistant/sensor/nodes_2fnode1/state/config" })
        #expect(Self.discovery.retirement.topic == Self.discovery.deviceTopic && Self.discovery.retirement.payload.isEmpty)
    }

    @Test("a cover hint: opened and closed by direct commands, its states from the machine's, no Stop without a command for it; a command the node does not take is no cover")
    func cover() throws {
        let hints = HomeAssistantHints<TurnstileApplication>(cover: .init(
            deviceClass: "gate", open: .repair, close: .fault, openStates: [.unlocked], opening: [.outOfOrder], closing: [.emergency]))
        let cover = try #require(Self.discovery.entities(hints: hints).first { $0.component == "cover" }).config
        #expect(cover.device_class == "gate" && cover.payload_open == .request(#"{"command":"repair","v":1}"#)
                && cover.payload_close == .request(#"{"command":"fault","v":1}"#) && cover.payload_stop == HomeAssistantCommand.none)
        #expect(cover.value_template?.contains(#"'open' if active | select('in', ["unlocked"]) | list"#) == true
                && cover.value_template?.contains(#"'opening' if active | select('in', ["outOfOrder"]) | list"#) == true)
        let data = try JSONSerialization.jsonObject(with: Data(SitePayload.encode(cover))) as? [String: Any] ?? [:]
        #expect(Set(data.keys).isSubset(of: Self.documentedKeys["cover"]!.all), "\(Set(data.keys).subtracting(Self.documentedKeys["cover"]!.all))")
        // Stated null, not left out: Home Assistant would show a Stop that sends STOP.
        #expect(data["payload_stop"] is NSNull, "\(data)")
        for notACommand in [HomeAssistantHints<TurnstileApplication>(cover: .init(deviceClass: "gate", open: .coin, openStates: [.unlocked])),
                            HomeAssistantHints<TurnstileApplication>(cover: .init(deviceClass: "gate", open: .repair, stop: .coin, openStates: [.unlocked]))] {
            #expect(!Self.discovery.entities(hints: notACommand).contains { $0.component == "cover" })
        }
    }
}
