import ControllerFSMSim
import ControllerTestSupport
@testable import ControllerCommandLine
@testable import ControllerSite
import ControllerHost
import ControllerMQTT
import Foundation
import Testing
import Turnstile

/// One identifier, one grammar. Each identifier the site takes from a person
/// or reads from the broker — node ids, prefixes, discovery prefixes, role names — is run
/// through every writer and reader of it over the same generated names: valid ones, with
/// spaces, slashes, `+`, `#`, unicode, control characters, empty, `all`, at and past each
/// length bound, and random ones of those pieces. What a writer accepts its readers read back;
/// what one refuses, every other refuses too, naming the option the user gave (never another),
/// quoting the value once, escaped. `SITE_IDENTITY_SEED` repeats a run.
@Suite("one identifier, one grammar: every writer and reader agree")
struct SiteIdentifierGrammarTests {
    typealias App = TurnstileApplication
    static let seed = SiteIdentityTests.seed
    static let url = "mqtt://127.0.0.1"

    /// Random names beside the fixed ones: each is parsed by three commands' options, which
    /// a debug build does in some milliseconds.
    static let randomNames = 120

    /// The names every identifier is tried with.
    static let names: [String] = {
        let fixed = [
            "gate-7", "gate.7", "gate_7", "Gate7", "7", "-", ".", "..", "gate 7", " ", "gate/7", "/", "gate+7", "+", "gate#7", "#",
            "é", "日本", "🚗", "gate\u{1B}[2J", "gate\n7", "\t", "gate\u{0}7", "\u{202E}gate", "\u{7F}", "", "all", "ALL", "all ",
            String(repeating: "a", count: SiteTopics.maxNodeBytes), String(repeating: "a", count: SiteTopics.maxNodeBytes + 1),
            String(repeating: "é", count: 40), String(repeating: "b", count: SiteTopics.maxPrefixBytes + 1),
            String(repeating: "c", count: 1_000), String(repeating: "d", count: 5_000),
        ]
        var random = SplitMix64(seed: seed)
        return fixed + (0..<Self.randomNames).map { _ in SiteIdentityTests.name(&random) }
    }()

    /// Prefixes also have levels.
    static let prefixes: [String] = names + ["a/b", "a//b", "/a", "a/", "a/+", "a/#", "site/gate 7", "a/b/c/d/e"]

    /// `option value` as a shell passes it: `--option=value` where the value starts with `-`
    /// (the parser would read it as an option), else two words (`--option ''` is an empty value,
    /// `--option=` none).
    static func given(_ option: String, _ value: String) -> [String] {
        value.hasPrefix("-") ? ["\(option)=\(value)"] : [option, value]
    }

    /// What a user is told of `error` by the command's own formatting.
    static func told(_ error: any Error) -> String {
        Fleet<App>.message(for: error)
    }

    func refusal(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return Self.told(error)
        }
    }

    /// A refusal of `value` given to `option`: it names `option` and no other site option, and
    /// quotes the value once, escaped (never `'all' 'all'`).
    func expectRefusal(_ message: String, option: String, value: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(message.contains("\(option) '\(value.shown)'"), "\(value.debugDescription): \(message.debugDescription)", sourceLocation: sourceLocation)
        for other in ["--mqtt-node", "--mqtt-prefix", "--mqtt-discovery-prefix", "--retire"] where other != option {
            #expect(!message.contains(other), "\(value.debugDescription): names \(other): \(message.debugDescription)", sourceLocation: sourceLocation)
        }
        // Once: a one-character value may also be the character the message names.
        let quoted = "'\(value.shown)'"
        #expect(!message.contains("\(quoted) \(quoted)"), "quoted twice: \(message.debugDescription)", sourceLocation: sourceLocation)
        if value.unicodeScalars.count > 1 {
            #expect(message.components(separatedBy: quoted).count == 2, "quoted once: \(message.debugDescription)", sourceLocation: sourceLocation)
        }
        #expect(!message.unicodeScalars.contains { $0.isInvisible }, "\(message.debugDescription)", sourceLocation: sourceLocation)
    }

    /// What a writer made of a name: what it took, or its refusal as the user is told it.
    enum Outcome<Taken> {
        case success(Taken)
        case failure(String)

        var taken: Taken? {
            if case .success(let taken) = self { return taken }
            return nil
        }
    }

    /// `run --mqtt-node NODE`: its topics, or its refusal.
    static func run(node: String) -> Outcome<SiteTopics> {
        do {
            let settings = try SiteOptions.parse(["--mqtt", url, "--mqtt-prefix", "site"] + given("--mqtt-node", node)).settings.resolve(boardName: "sim", daemon: App.daemonName, hasDatabase: true)
            return .success(settings!.topics)
        } catch {
            return .failure(told(error))
        }
    }

    /// `fleet --retire NODE`: what it clears, or its refusal.
    static func retire(_ node: String, prefix: String = "site", discoveryPrefix: String = "homeassistant") -> Outcome<[String]> {
        do {
            let fleet = try Fleet<App>.parse(["--mqtt", url] + given("--mqtt-prefix", prefix) + given("--retire", node) + given("--mqtt-discovery-prefix", discoveryPrefix))
            return .success(try FleetRetirement(App.self, node: fleet.retire!, prefix: prefix, discoveryPrefix: discoveryPrefix).topics)
        } catch {
            return .failure(told(error))
        }
    }

    /// `fleet`'s view of a retained availability on `PREFIX/NODE/availability`.
    static func listed(_ node: String, prefix: String = "site") -> FleetView {
        var view = FleetView(prefix: prefix)
        view.take(.message(MQTTMessage(topic: "\(prefix)/\(node)/availability", payload: Array("offline".utf8), qos: .atLeastOnce, retained: true)))
        return view
    }

    @Test("node ids: run --mqtt-node, the publisher's topics, Home Assistant's ids, fleet's list and fleet --retire agree on every name")
    func nodeIDs() throws {
        var (taken, listedOnly, refused) = (0, 0, 0)
        for name in Self.names {
            let run = Self.run(node: name)
            let retire = Self.retire(name)
            let view = Self.listed(name)
            let listed = view.nodes[name] != nil
            switch run {
            case .success(let topics):
                taken += 1
                // The daemon publishes under the name itself, and every reader reads it back.
                #expect(SiteTopics.nodeIDProblem(name) == nil)
                #expect(topics.node == name && topics.availability == "site/\(name)/availability")
                #expect(SiteIdentity.unescaped(SiteDiscovery<App>(prefix: "homeassistant", topics: topics).nodeLevel) == "site/\(name)")
                #expect(listed && view.notes(name).isEmpty, "\(name.debugDescription): \(view.notes(name))")
                let cleared = try #require(retire.taken, "\(name.debugDescription): \(retire)")
                let device = SiteDiscovery<App>(prefix: "homeassistant", topics: topics).deviceTopic
                #expect(cleared == [topics.state, topics.counters, topics.health, topics.inputs, topics.claim, device, topics.availability])
            case .failure(let message):
                expectRefusal(message, option: "--mqtt-node", value: name)
                #expect(message.contains(SiteTopics.nodeIDProblem(name) ?? "?"), "\(message)")
            }
            // What fleet lists, --retire takes, and clears the very topics fleet read; what it
            // does not list, --retire refuses.
            switch retire {
            case .success(let cleared):
                #expect(listed, "\(name.debugDescription): --retire takes what fleet never lists")
                #expect(cleared.contains("site/\(name)/availability") && cleared.allSatisfy { $0.hasPrefix("site/\(name)/") || $0.hasPrefix("homeassistant/") })
                if case .failure = run {
                    listedOnly += 1
                    #expect(cleared == SiteTopics.retainedLeaves.map { "site/\(name)/\($0)" }, "no device for a level no daemon announced")
                    #expect(view.notes(name).first?.contains("not a node id, as it \(SiteTopics.nodeIDProblem(name)!)") == true, "\(view.notes(name))")
                    let table = view.table(now: 0)
                    #expect(table.contains(name.isEmpty ? "''" : name.shown) && !table.unicodeScalars.contains { $0 != "\n" && $0.isInvisible }, "\(table.debugDescription)")
                }
            case .failure(let message):
                refused += 1
                #expect(!listed, "\(name.debugDescription): fleet lists what --retire refuses: \(message)")
                expectRefusal(message, option: "--retire", value: name)
            }
        }
        // Each kind was generated.
        #expect(taken > 10 && listedOnly > 10 && refused > 10, "seed \(Self.seed): \(taken) taken, \(listedOnly) listed only, \(refused) refused")
    }

    @Test("prefixes: run's and fleet's --mqtt-prefix (listing and retiring) agree, and fleet reads back what a node under it publishes")
    func prefixes() throws {
        for prefix in Self.prefixes {
            let run = refusal { _ = try SiteOptions.parse(["--mqtt", Self.url, "--mqtt-node", "gate1"] + Self.given("--mqtt-prefix", prefix)).settings.resolve(boardName: "sim", daemon: App.daemonName, hasDatabase: true) }
            let fleet = refusal { _ = try Fleet<App>.parse(["--mqtt", Self.url] + Self.given("--mqtt-prefix", prefix)) }
            let retire = refusal { _ = try Fleet<App>.parse(["--mqtt", Self.url, "--retire", "gate1"] + Self.given("--mqtt-prefix", prefix)) }
            let valid = SiteTopics.prefixProblem(prefix) == nil
            #expect((run == nil) == valid && (fleet == nil) == valid && (retire == nil) == valid, "\(prefix.debugDescription): \([run, fleet, retire])")
            for message in [run, fleet, retire].compactMap({ $0 }) { expectRefusal(message, option: "--mqtt-prefix", value: prefix) }
            guard valid else { continue }
            let topics = try SiteTopics(prefix: prefix, node: "gate1")
            #expect(Self.listed("gate1", prefix: prefix).nodes["gate1"] != nil && topics.availability == "\(prefix)/gate1/availability")
            #expect(FleetView(prefix: prefix).filters.contains(topics.everyNodes("availability")))
        }
    }

    @Test("discovery prefixes: run's and fleet --retire's --mqtt-discovery-prefix agree; the device a node announces is the one --retire clears")
    func discoveryPrefixes() throws {
        for prefix in Self.prefixes {
            let run = refusal { _ = try SiteOptions.parse(["--mqtt", Self.url, "--mqtt-node", "gate1"] + Self.given("--mqtt-discovery-prefix", prefix)).settings.resolve(boardName: "sim", daemon: App.daemonName, hasDatabase: true) }
            let fleet = refusal { _ = try Fleet<App>.parse(["--mqtt", Self.url] + Self.given("--mqtt-discovery-prefix", prefix)) }
            let retire = Self.retire("gate1", discoveryPrefix: prefix)
            let valid = SiteTopics.prefixProblem(prefix) == nil
            #expect((run == nil) == valid && (fleet == nil) == valid, "\(prefix.debugDescription): \([run, fleet])")
            for message in [run, fleet].compactMap({ $0 }) { expectRefusal(message, option: "--mqtt-discovery-prefix", value: prefix) }
            switch retire {
            case .success(let cleared):
                #expect(valid)
                let announced = SiteDiscovery<App>(prefix: prefix, topics: try SiteTopics(prefix: "site", node: "gate1"))
                #expect(cleared.contains(announced.deviceTopic) && announced.deviceTopic.hasPrefix("\(prefix)/device/") && announced.statusTopic == "\(prefix)/status")
            case .failure(let message):
                #expect(!valid)
                expectRefusal(message, option: "--mqtt-discovery-prefix", value: prefix)
            }
        }
    }

    /// The character after each backslash escape of a string literal.
    static func escapes(_ literal: String) -> [Character] {
        var escapes: [Character] = []
        var iterator = literal.makeIterator()
        while let character = iterator.next() {
            guard character == "\\", let escaped = iterator.next() else { continue }
            escapes.append(escaped)
        }
        return escapes
    }

    @Test("role names: the button's request, the template's literal, the object level and the inputs payload each read back as the role, whatever its name")
    func roleNames() throws {
        for name in Self.names {
            for on in [nil, true, false] as [Bool?] {
                let request = DiscoveryText.request(name, on: on)
                let read = try #require(try JSONSerialization.jsonObject(with: Data(request.utf8)) as? [String: Any], "\(request)")
                #expect(read["command"] as? String == name && read["on"] as? Bool == on && read["v"] as? Int == 1, "\(request)")
            }
            // A Jinja string literal: JSON's quoting, whose escapes Jinja reads the same
            // (Python's unicode-escape); never `\/`, which Python would keep.
            let literal = DiscoveryText.templateString(name)
            #expect(literal.hasPrefix("\"") && literal.hasSuffix("\""), "\(literal)")
            #expect(Self.escapes(literal).allSatisfy { "\"\\bfnrtu".contains($0) }, "\(literal.debugDescription): \(Self.escapes(literal))")
            #expect(!literal.unicodeScalars.contains { $0.value < 0x20 }, "\(literal.debugDescription)")
            #expect(try JSONDecoder().decode(String.self, from: Data(literal.utf8)) == name, "\(literal.debugDescription)")
            let object = SiteDiscovery<App>.objectLevel(kind: "input", name: name)
            #expect(object.hasPrefix("input-") && SiteIdentity.unescaped(object.dropFirst("input-".count)) == name, "\(object)")
            let inputs = SitePayload.encode(SitePayload.Inputs(node: "gate1", app: App.name, levels: [name: true]))
            #expect(try JSONDecoder().decode(SitePayload.Inputs.self, from: Data(inputs)).levels == [name: true])
        }
    }
}
