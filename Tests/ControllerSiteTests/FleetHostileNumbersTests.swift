import TurnstileTestSupport
@testable import ControllerSite
import ControllerHost
import ControllerMQTT
import Foundation
import PropertyBased
import Testing
import ControllerTestSupport

/// `fleet` reads numbers and text any node (buggy or hostile) put on
/// the broker. Generated members of the class: totals and `lastEventUnixNanoseconds` at the
/// Int64 extremes, next to them and random, with a random `now`; names, states and counter
/// kinds made of ESC, BEL, CSI, line breaks and long runs. The aggregation, the table and
/// `--json` never trap, sums saturate, and no control character reaches the terminal.
@Suite("fleet survives any number or text a node publishes")
struct FleetHostileNumbersTests {
    static let extremes: [Int64] = [.min, .min + 1, -1_000_000_000, -1, 0, 1, 1_000_000_000, .max - 1, .max]

    static func message(_ topic: String, _ json: String) -> MQTTEvent {
        .message(MQTTMessage(topic: topic, payload: Array(json.utf8), qos: .atLeastOnce, retained: true))
    }

    static func counters(node: String, coins: Int64, last: Int64) -> MQTTEvent {
        message("site/\(node)/counters", #"{"node":"\#(node)","app":"turnstile","totals":{"coins":\#(coins),"passages":1},"lastEventUnixNanoseconds":\#(last)}"#)
    }

    static let numbers = Gen.oneOf(Gen.element(of: extremes).map { $0! }, Gen.int64())

    @Test("Int64 extremes and random values in totals, event times and now")
    func extremeNumbers() async {
        await propertyCheck(count: PropertyCases.count(300), input: zip(Self.numbers, Self.numbers, Self.numbers, Self.numbers, Self.numbers)) { coinsA, coinsB, lastA, lastB, now in
            var view = FleetView(prefix: "site")
            view.take(Self.counters(node: "a", coins: coinsA, last: lastA))
            view.take(Self.counters(node: "b", coins: coinsB, last: lastB))
            #expect(view.nodes.count == 2)
            let sum = view.sums["turnstile"]?["coins"]
            let (exact, overflow) = coinsA.addingReportingOverflow(coinsB)
            #expect(sum == Int(overflow ? (coinsB > 0 ? .max : .min) : exact))
            #expect(view.sums["turnstile"]?["passages"] == 2)
            let table = view.table(now: now)
            #expect(table.contains("site: 2 controller(s)"))
            let json = view.json(now: now)
            let decoded = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
            #expect(decoded != nil, "\(json)")
            let ages = (decoded?["controllers"] as? [[String: Any]])?.compactMap { $0["lastEventAgeSeconds"] as? Double } ?? []
            #expect(ages.count == 2 && ages.allSatisfy(\.isFinite))
        }
    }

    @Test("extreme members: Int64.max + 1 coins, an event at Int64.min")
    func issueExamples() {
        var view = FleetView(prefix: "site")
        view.take(Self.counters(node: "a", coins: .max, last: .min))
        view.take(Self.counters(node: "b", coins: 1, last: .max))
        #expect(view.sums["turnstile"]?["coins"] == .max)
        #expect(view.table(now: 1_800_000_000_000_000_000).contains("coins \(Int.max)"))
        #expect(view.json(now: .min).contains("\"coins\":\(Int.max)"))
    }

    static let hostilePieces = ["a", "Z", "9", " ", "-", "\u{1B}", "\u{1B}[2J", "\u{1B}]0;owned\u{07}", "\u{07}", "\n", "\r", "\u{9B}", "\u{2028}", "\u{202E}", "é", String(repeating: "x", count: 90)]
    static let hostileText = Gen.element(of: hostilePieces).map { $0! }.array(of: 0...8).map { $0.joined() }

    @Test("control characters and long text in node names, states, apps and counter kinds never reach the terminal raw")
    func hostileText() async {
        await propertyCheck(count: PropertyCases.count(200), input: zip(Self.hostileText, Self.hostileText, Self.hostileText, Self.hostileText)) { node, app, state, kind in
            var view = FleetView(prefix: "site")
            let level = node.replacingOccurrences(of: "/", with: "")
            func quoted(_ text: String) -> String { String(decoding: try! JSONEncoder().encode(text), as: UTF8.self) }
            view.take(Self.message("site/\(level)/availability", "online\u{1B}[2J\n\(state)"))
            view.take(Self.message("site/\(level)/state", #"{"node":"x","app":\#(quoted(app)),"state":\#(quoted(state)),"gauges":{}}"#))
            view.take(Self.message("site/\(level)/counters", #"{"node":"x","app":\#(quoted(app)),"totals":{\#(quoted(kind)):3}}"#))
            let table = view.table(now: 0)
            let lines = table.split(separator: "\n", omittingEmptySubsequences: false)
            // Header, one row, a blank line, the site line and one application's sums, and the
            // node's notes when there are any (a name that is no node id, a value cut): no
            // forged row.
            let notes = view.notes(level).isEmpty ? 0 : 1
            #expect(lines.count == 5 + notes, "\(table.debugDescription)")
            #expect(!table.unicodeScalars.contains { $0 != "\n" && $0.isInvisible }, "\(table.debugDescription)")
            for line in lines.prefix(5) { #expect(line.count < 6 * (Quoting.maxQuotedCharacters + 40)) }
            for line in lines.dropFirst(5) { #expect(line.hasPrefix("  ") && line.count <= Quoting.maxLineCharacters + 40, "\(line)") }
        }
    }
}
