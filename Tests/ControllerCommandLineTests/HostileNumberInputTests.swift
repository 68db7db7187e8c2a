import TurnstileTestSupport
@testable import ControllerCommandLine
@testable import ControllerRuntime
@testable import ControllerDaemon
import ControllerHost
import ControllerSimulation
import Foundation
import PropertyBased
import Testing
import Turnstile
import ControllerTestSupport

/// Every number read from the broker, a file or a socket saturates or is
/// refused naming its field, line or key, and never traps. A trap would kill this test process,
/// so each test passing is the proof that its path cannot trap on the members generated here.
///
/// Generated members of the class, for every entry point: Int64.min and .max and the numbers
/// either side of them, UInt64.max and past it, 400-digit decimals of either sign, negative
/// zero (integer and floating), exponents past Double's range and below its smallest, and
/// random Int64 and UInt64 values. Entry points: a control request's `v` and `id` (the same
/// parser answers the MQTT command topic), a board file's integers (`line`, `bounce_edges`)
/// and durations (`debounce`, `relock_timeout`), a scenario's times, counts, `set` values and
/// holds, a daemon's status reply as `ctl` reads and prints it, the client's reply timeout,
/// and the saturating arithmetic every one of them that adds uses. The fleet's retained
/// messages have their own test (FleetHostileNumbersTests); the store's unwritten-counts file
/// too (ControllerStoreTests/HostileStoredNumbersTests).
@Suite("Numbers from outside saturate or are refused by name, never trap")
struct HostileNumberInputTests {
    static let edges: [String] = [
        "\(Int64.min)", "\(Int64.min + 1)", "-9223372036854775809", "-1", "-0", "0", "1",
        "\(Int64.max - 1)", "\(Int64.max)", "9223372036854775808", "\(UInt64.max)", "18446744073709551616",
        String(repeating: "9", count: 400), "-" + String(repeating: "9", count: 400),
        "1e400", "-1e400", "1e-400", "-0.0", "0.0", "1.5", "4.9e-324", "1.7976931348623157e308", "0.000000001", "0.0000000001",
    ]

    /// A number as text: an edge, or a random Int64 or UInt64.
    static let numbers = Gen.oneOf(
        Gen.element(of: edges).map { $0! }, Gen.int64().map { "\($0)" }, Gen.uint64().map { "\($0)" })

    // MARK: - The control socket (and the MQTT command topic: the same parser)

    @Test("a control request's numbers: v, id, and a number where a name or a bool goes")
    func controlRequestNumbers() async {
        let templates = [
            #"{"v":N,"command":"status"}"#, #"{"v":1,"id":N,"command":"status"}"#, #"{"v":1,"command":"pulse","line":N}"#,
            #"{"v":1,"command":"emergency","on":N}"#, #"{"v":1,"command":N}"#, #"{"v":1,"id":N,"command":"events","follow":N}"#,
        ]
        await propertyCheck(count: PropertyCases.count(300), input: Self.numbers, Gen.element(of: templates).map { $0! }) { number, template in
            let line = template.replacingOccurrences(of: "N", with: number)
            let (id, result) = ControlRequestLine<TurnstileApplication>.parse(Array(line.utf8))
            if let id { #expect((0...ControlProtocol.maxRequestID).contains(id), "\(line)") }
            switch result {
            case .success(let request):
                // Only 1 is a version this daemon speaks.
                if template.hasPrefix(#"{"v":N"#) { #expect(number == "1", "\(line) → \(request)") }
            case .failure(let error):
                // Named: the field, or the line as a whole (JSON that no number can be).
                let named = ["\"v\"", "\"id\"", "\"line\"", "\"on\"", "\"command\"", "\"follow\""].contains { error.message.contains($0) }
                    || error == .malformedJSON || error.code == "unsupported_version"
                #expect(named, "\(line) → \(error.message)")
            }
        }
    }

    @Test("the same numbers on the MQTT command topic's handler: every one answered, none trapping")
    func mqttCommandNumbers() async {
        await propertyCheck(count: PropertyCases.count(200), input: Self.numbers) { number in
            let payload = #"{"v":1,"id":\#(number),"command":"fault"}"#
            let answered = ControlRequestLine<TurnstileApplication>.answer(Array(payload.utf8)) { _ in .accepted("fault") }
            let reply = String(decoding: answered.reply.encoded(daemon: "turnstiled"), as: UTF8.self)
            #expect(reply.hasSuffix("}\n"), "\(reply)")
        }
    }

    // MARK: - Board files

    @Test("a board file's integers and durations")
    func boardNumbers() async {
        let templates = [
            ("line = 0", "line = N"), ("line = 0", "line = -N"),
            ("[outputs.lock]\nline = 2", "[outputs.lock]\nline = 2\n[sim]\nbounce_edges = N"),
            ("[inputs.coin]\nline = 0", "[inputs.coin]\nline = 0\ndebounce = \"Nms\""),
            ("[inputs.coin]\nline = 0", "[inputs.coin]\nline = 0\ndebounce = \"Ns\""),
            ("[outputs.lock]\nline = 2", "[outputs.lock]\nline = 2\n[turnstile]\nrelock_timeout = \"Nns\""),
            ("[outputs.lock]\nline = 2", "[outputs.lock]\nline = 2\n[turnstile]\nrelock_timeout = N"),
        ]
        await propertyCheck(count: PropertyCases.count(300), input: Self.numbers, Gen.element(of: templates).map { $0! }) { number, template in
            let text = minimalBoard.replacingOccurrences(of: template.0, with: template.1.replacingOccurrences(of: "N", with: number))
            do {
                _ = try BoardFile.parse(text, file: "x.toml")
            } catch {
                // Named: a key path or a line and column in the file.
                let description = "\(error)"
                #expect(description.hasPrefix("x.toml: "), "\(description)")
                let named = ["line ", "inputs.", "outputs.", "sim.", "turnstile."].contains { description.dropFirst(8).hasPrefix($0) }
                #expect(named, "\(description)")
                #expect(description.count < 1_000, "\(description.prefix(300))")
            }
        }
    }

    // MARK: - Scenarios (and recordings: a recording is a scenario)

    @Test("a scenario's times, counts, set values and holds")
    func scenarioNumbers() async {
        let templates = [
            "N coin", "0 expect counter coins N", "0 expect credit N", "0 set relock_timeout N", "0 hold coin N",
            "0 push hold N", "0 pulse coin N", "N end", "0 coin\nN coin\nN end",
        ]
        let vocabulary = TurnstileSimulation.vocabulary(for: .defaultSim)
        await propertyCheck(count: PropertyCases.count(300), input: Self.numbers, Gen.element(of: templates).map { $0! }) { number, template in
            let text = template.replacingOccurrences(of: "N", with: number) + "\n"
            do {
                _ = try Scenario<TurnstileApplication>.parse(text, file: "s.txt", vocabulary: vocabulary)
            } catch let error as ScenarioError {
                #expect(error.line != nil, "\(error)")
                #expect(error.description.hasPrefix("s.txt: line "), "\(error)")
                #expect(error.description.count < 1_000, "\(error.description.prefix(300))")
            } catch {
                Issue.record("not a ScenarioError: \(error)")
            }
        }
    }

    // MARK: - A daemon's reply, as ctl reads and prints it

    @Test("a status reply's numbers, read by ctl and printed")
    func statusReplyNumbers() async {
        let doubles = Gen.oneOf(
            Gen.element(of: ["0", "-0", "-0.0", "1e308", "-1e308", "1.7976931348623157e308", "4.9e-324", "1e-400", "123456789012.5"]).map { $0! },
            Gen.double(in: -1e300...1e300).map { "\($0)" })
        await propertyCheck(count: PropertyCases.count(300), input: Self.numbers, Self.numbers, doubles) { count, gauge, seconds in
            let snapshot = #"""
                {"v":1,"ok":true,"status":{"phase":"running","state":"locked","gauges":{"credit":\#(gauge)},"counters":{"coins":\#(count)},"uptimeSeconds":\#(seconds),"board":"sim","chip":"c","events":\#(count),"queueDepth":\#(gauge),"droppedCommands":0,"lostEdges":\#(count),"traceLosses":0,"lastTransitions":[{"time":\#(seconds),"from":"a","event":"e","to":"b"}],"outputOverrides":\#(count),"heldOutputs":{}}}
                """#
            do {
                let line = try ControlReplyLine(parsing: Array(snapshot.utf8), daemon: "turnstiled")
                guard case .status(let status) = line.reply else { return }
                let shown = Ctl<TurnstileApplication>.describe(status, style: Style(enabled: false))
                #expect(shown.hasPrefix("state    locked"), "\(shown.prefix(300))")
            } catch {
                // A reply no number can be: refused as a whole, by name.
                #expect(!"\(error)".isEmpty)
            }
        }
    }

    @Test("ctl's seconds: any Double, printed without a trap")
    func ctlSeconds() async {
        let extremes: [Double] = [.nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, -0.0, 1e12, 999_999_999_999.9995]
        await propertyCheck(count: PropertyCases.count(300), input: Gen.oneOf(Gen.element(of: extremes).map { $0! }, Gen.double(in: -1e15...1e15))) { seconds in
            #expect(!Ctl<TurnstileApplication>.decimal(seconds, places: 3).isEmpty)
            #expect(!Ctl<TurnstileApplication>.decimal(seconds, places: 1).isEmpty)
        }
    }

    @Test("the control client's reply timeout: any Double becomes poll's milliseconds")
    func pollTimeout() async {
        let extremes: [Double] = [.nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, -0.0, 0, 1e-12, 2_147_483.647, 2_147_483.648, 1e300]
        await propertyCheck(count: PropertyCases.count(300), input: Gen.oneOf(Gen.element(of: extremes).map { $0! }, Gen.double(in: -1e20...1e20))) { seconds in
            let milliseconds = ControlClient<TurnstileApplication>.pollMilliseconds(seconds)
            #expect(milliseconds >= 0)
            if seconds.isFinite, seconds > 0, seconds * 1000 <= Double(Int32.max) - 1 {
                #expect(Double(milliseconds) >= seconds * 1000 && Double(milliseconds) < seconds * 1000 + 1)
            }
        }
    }

    // MARK: - The arithmetic they share

    @Test("saturating sums, differences and products equal the exact result held at Int64's bounds")
    func saturatingArithmetic() async {
        let extremes: [Int64] = [.min, .min + 1, -1, 0, 1, .max - 1, .max]
        let values = Gen.oneOf(Gen.element(of: extremes).map { $0! }, Gen.int64(), Gen.int64(in: -100...100))
        func held(_ exact: Int128) -> Int64 { Int64(clamping: exact) }
        await propertyCheck(count: PropertyCases.count(1_000), input: values, values) { a, b in
            #expect(a.saturatingAdding(b) == held(Int128(a) + Int128(b)))
            #expect(a.saturatingSubtracting(b) == held(Int128(a) - Int128(b)))
            #expect(a.saturatingMultiplied(by: b) == held(Int128(a) * Int128(b)))
            #expect([a, b].saturatingSum() == held(Int128(a) + Int128(b)))
        }
    }
}
