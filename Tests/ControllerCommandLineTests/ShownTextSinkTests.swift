import TurnstileTestSupport
@testable import ControllerCommandLine
@testable import ControllerRuntime
@testable import ControllerSite
@testable import ControllerDaemon
import ControllerFSM
import ControllerHost
@testable import ControllerHTTP
import ControllerMQTT
import ControllerSimulation
@testable import ControllerStore
import Foundation
import Logging
import PropertyBased
import Testing
import Turnstile
import ControllerTestSupport

/// Everything shown to a person goes through one escaping and bounding
/// path (ShownText.swift: `shown` for a quoted token, `shownLine` for a whole line at a sink).
///
/// Generated members of the class: text made of ESC `[2J`, an OSC title ending in BEL, BEL,
/// CR and LF followed by a forged row, C1's CSI (U+009B), a bidirectional override (U+202E),
/// zero-width characters (U+200B, U+FEFF), a line separator, one character carrying 10,000
/// combining marks, ordinary letters, and a 70 KB run. Entry points: a control request (the
/// command's name, a line's name, a field's name, a string where a number goes; the MQTT command
/// topic has the same handler), a board file's keys and values, a scenario's lines, a fleet's
/// retained messages, the store's text (a row's value, the unwritten-counts file). Sinks: the
/// log handler's line, `ctl`'s printout of a status, a failure and a transition, the status
/// page, and each error's description. Each output holds no raw control or invisible
/// character (but the line breaks the sink itself puts between lines) and is bounded.
@Suite("Text from outside reaches a person escaped and bounded, through one path")
struct ShownTextSinkTests {
    static let seventyKB = String(repeating: "x", count: 70 * 1024)
    static let pieces = [
        "a", "Z", "9", "-", "\u{1B}[2J", "\u{1B}]0;owned\u{07}", "\u{07}", "\r\nstate    unlocked", "\n<3>forged", "\u{9B}31m",
        "\u{202E}", "\u{200B}", "\u{FEFF}", "\u{2028}", "e" + String(repeating: "\u{301}", count: 10_000), "é", seventyKB,
    ]
    /// Hostile text: up to six pieces, at least one.
    static let hostile = Gen.element(of: pieces).map { $0! }.array(of: 1...6).map { $0.joined() }

    /// Whether `text` holds no control or invisible character, but line feeds where `lines`.
    static func clean(_ text: String, lines: Bool = false) -> Bool {
        !text.unicodeScalars.contains { $0.isInvisible && !(lines && $0 == "\n") }
    }

    /// The most characters of one line an error message may take: a few quoted tokens and the
    /// advice around them (the longest lists every command of the application).
    static let messageBound = 2_000

    /// An error's description, as a person reads it: clean and bounded.
    static func expectShown(_ error: any Error, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let description = "\(error)"
        #expect(clean(description), "\(description.prefix(300).debugDescription)", sourceLocation: sourceLocation)
        #expect(description.count < messageBound, "\(description.count)", sourceLocation: sourceLocation)
    }

    // MARK: - The path itself

    @Test("shown and shownLine escape every invisible scalar and bound what they write")
    func thePath() async {
        await propertyCheck(count: PropertyCases.count(300), input: Self.hostile) { text in
            for (shown, limit) in [(text.shown, Quoting.maxQuotedCharacters), (text.shownLine, Quoting.maxLineCharacters)] {
                #expect(Self.clean(shown), "\(shown.prefix(200).debugDescription)")
                // The limit, then at most "… (N bytes)".
                #expect(shown.unicodeScalars.count <= limit + 20, "\(shown.unicodeScalars.count)")
                #expect(shown.visible == shown, "escaping twice changes nothing")
                if text.unicodeScalars.count <= limit, Self.clean(text) { #expect(shown == text) }
            }
            #expect(text.bounded.unicodeScalars.count <= Quoting.maxQuotedCharacters + 20)
        }
    }

    @Test("an escape is never cut in half, and a cut says how long the text was")
    func cuts() {
        let text = String(repeating: "\u{1B}", count: 100)
        #expect(text.shown == String(repeating: #"\u{1B}"#, count: Quoting.maxQuotedCharacters / 6) + "… (100 bytes)")
        let zalgo = "e" + String(repeating: "\u{301}", count: 10_000)
        #expect(zalgo.bounded.unicodeScalars.count < 100, "a character of 10,001 scalars is cut")
        #expect(zalgo.shown.hasSuffix("… (20001 bytes)"))
    }

    // MARK: - Entry points

    @Test("a control request's command, line and field names, and a string where a number goes")
    func controlRequest() async {
        let templates = [
            #"{"v":1,"command":TEXT}"#, #"{"v":1,"command":"pulse","line":TEXT}"#, #"{"v":1,"command":"status",TEXT:1}"#,
            #"{"v":TEXT,"command":"status"}"#, #"{"v":1,"id":TEXT,"command":"status"}"#, #"{"v":1,"command":"emergency","on":TEXT}"#,
            #"[TEXT]"#, #"TEXT"#,
        ]
        await propertyCheck(count: PropertyCases.count(300), input: Self.hostile, Gen.element(of: templates).map { $0! }) { text, template in
            let json = String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
            let line = template.replacingOccurrences(of: "TEXT", with: json)
            let answered = ControlRequestLine<TurnstileApplication>.answer(Array(line.utf8)) { _ in .accepted("status") }
            guard case .failure(let failure) = answered.reply.reply else { return }
            #expect(Self.clean(failure.message), "\(failure.message.prefix(300).debugDescription)")
            #expect(failure.message.count < Self.messageBound, "\(failure.message.count)")
            // ctl prints the message as the daemon sent it, through the same path.
            #expect(Self.clean(failure.message.shownLine))
        }
    }

    @Test("a board file's keys and values")
    func boardFile() async {
        let templates = [
            ("[board]\nname = \"bench\"", "[board]\nname = \"bench\"\n\"TEXT\" = 1"),
            ("[board]\nname = \"bench\"", "[board]\nname = \"TEXT\""),
            ("[inputs.coin]\nline = 0", "[inputs.coin]\nline = \"TEXT\"\nbias = \"TEXT\""),
            ("[inputs.coin]\nline = 0", "[inputs.coin]\nline = 0\ndebounce = \"1TEXT\""),
            ("[inputs.coin]\nline = 0", "[inputs.\"TEXT\"]\nline = 0"),
            ("[outputs.lock]\nline = 2", "[outputs.lock]\nline = 2\n[turnstile]\nfail_mode = \"TEXT\""),
        ]
        await propertyCheck(count: PropertyCases.count(200), input: Self.hostile, Gen.element(of: templates).map { $0! }) { text, template in
            // TOML's own escapes, so the file holds the characters themselves (a raw control
            // byte is refused before parsing, by its own rule).
            let escaped = text.unicodeScalars.map { $0.isInvisible || $0 == "\"" || $0 == "\\" ? String(format: "\\U%08X", $0.value) : String($0) }.joined()
            let board = minimalBoard.replacingOccurrences(of: template.0, with: template.1.replacingOccurrences(of: "TEXT", with: escaped))
            do {
                _ = try BoardFile.parse(board, file: "x.toml")
            } catch {
                Self.expectShown(error)
            }
        }
    }

    @Test("a scenario's lines")
    func scenarioLine() async {
        let templates = [
            "1 TEXT", "TEXT coin", "1 set TEXT 5", "1 set relock_timeout TEXT", "1 event TEXT", "1 expect state TEXT",
            "1 pulse TEXT", "1 expect counter TEXT 1", "1 expect output lock TEXT", "1 push TEXT",
        ]
        let vocabulary = TurnstileSimulation.vocabulary(for: .defaultSim)
        await propertyCheck(count: PropertyCases.count(300), input: Self.hostile, Gen.element(of: templates).map { $0! }) { text, template in
            do {
                _ = try Scenario<TurnstileApplication>.parse(template.replacingOccurrences(of: "TEXT", with: text) + "\n", file: "s.txt", vocabulary: vocabulary)
            } catch {
                Self.expectShown(error)
            }
        }
    }

    @Test("a fleet's retained messages")
    func fleetRetained() async {
        await propertyCheck(count: PropertyCases.count(100), input: Self.hostile, Self.hostile) { node, state in
            var view = FleetView(prefix: "site")
            let level = node.replacingOccurrences(of: "/", with: "").replacingOccurrences(of: "+", with: "").replacingOccurrences(of: "#", with: "")
            func quoted(_ text: String) -> String { String(decoding: try! JSONEncoder().encode(text), as: UTF8.self) }
            let payload = #"{"node":"x","app":\#(quoted(state)),"state":\#(quoted(state)),"gauges":{}}"#
            view.take(.message(MQTTMessage(topic: "site/\(level)/state", payload: Array(payload.utf8), qos: .atLeastOnce, retained: true)))
            let table = view.table(now: 0)
            #expect(Self.clean(table, lines: true), "\(table.prefix(300).debugDescription)")
            for line in table.split(separator: "\n") { #expect(line.count < 8 * (Quoting.maxQuotedCharacters + 20)) }
            // `fleet --json` is printed to a terminal too: escaped, and still the same JSON.
            let json = view.json(now: 0)
            #expect(Self.clean(json), "\(json.prefix(300).debugDescription)")
            #expect((try? JSONSerialization.jsonObject(with: Data(json.utf8))) != nil, "\(json.prefix(300).debugDescription)")
        }
    }

    @Test("JSON shown to a person: every invisible scalar escaped, the document unchanged for a parser")
    func jsonOutput() async {
        await propertyCheck(count: PropertyCases.count(100), input: Self.hostile) { text in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            let raw = String(decoding: try! encoder.encode(["name": text + "\u{7F}"]), as: UTF8.self)
            let shown = JSONText.escapingInvisibles(raw)
            #expect(Self.clean(shown, lines: true), "\(shown.prefix(300).debugDescription)")
            let decoded = try? JSONDecoder().decode([String: String].self, from: Data(shown.utf8))
            #expect(decoded == ["name": text + "\u{7F}"], "the escapes decode to the same text")
        }
    }

    @Test("the store's text: a row's value and the unwritten-counts file")
    func storeText() async throws {
        await propertyCheck(count: PropertyCases.count(200), input: Self.hostile) { text in
            for quoted in [true, false] {
                let shown = StoredRow.describe(.text(text), quoted: quoted)
                #expect(Self.clean(shown) && shown.count < 200, "\(shown.prefix(300).debugDescription)")
            }
            let header = UnwrittenCounts<TurnstileApplication>.header
            for body in ["\(text.replacingOccurrences(of: "\n", with: "")) 1", "session 1\ntime 0\ncredit 0\nstate \(text)", "session \(text)"] {
                do {
                    _ = try UnwrittenCounts<TurnstileApplication>.parse(header + "\n" + body + "\n", path: "u")
                } catch {
                    Self.expectShown(error)
                }
            }
        }
    }

    // MARK: - Sinks

    @Test("the log handler's line: one line, escaped and bounded, whatever the message and metadata hold")
    func logLine() async {
        await propertyCheck(count: PropertyCases.count(200), input: Self.hostile, Self.hostile, Self.hostile) { message, key, value in
            for journal in [true, false] {
                let line = PlainLogHandler.line(
                    level: .warning, message: "peer \(message) sent", metadata: ["peer": .string(value), key: "x"], journal: journal)
                #expect(line.hasSuffix("\n") && line.dropLast().firstIndex(of: "\n") == nil, "\(line.prefix(300).debugDescription)")
                #expect(Self.clean(String(line.dropLast())), "\(line.prefix(300).debugDescription)")
                #expect(line.unicodeScalars.count < 3 * (Quoting.maxLineCharacters + 30))
            }
        }
    }

    @Test("ctl's printout of a status, an accepted command and a transition")
    func ctlPrintout() async {
        await propertyCheck(count: PropertyCases.count(100), input: Self.hostile, Self.hostile) { a, b in
            let snapshot = DaemonSnapshot(
                phase: a, degradedReason: b, state: b, gauges: [a: 1], counters: [b: 2], uptimeSeconds: 1, board: a, chip: b,
                events: 0, queueDepth: 0, droppedCommands: 0, lostEdges: 0, traceLosses: 0,
                lastTransitions: [TransitionSummary(time: 1, from: a, event: b, to: a)], outputOverrides: 1, heldOutputs: [a: b])
            let printed = Ctl<TurnstileApplication>.describe(snapshot, style: Style(enabled: false))
            #expect(Self.clean(printed, lines: true), "\(printed.prefix(300).debugDescription)")
            // state, the gauge, uptime, board, events, overrides, counters, "last transitions:" and one.
            #expect(printed.split(separator: "\n", omittingEmptySubsequences: false).count == 9, "\(printed.prefix(600).debugDescription)")
            for line in printed.split(separator: "\n") { #expect(line.count < 3 * Quoting.maxLineCharacters) }
        }
    }

    @Test("the status page")
    func statusPage() async {
        let layout = DiagramLayouts.layout(of: TurnstileApplication.self)
        await propertyCheck(count: PropertyCases.count(30), input: Self.hostile) { text in
            let snapshot = DaemonSnapshot(
                phase: text, degradedReason: text, state: text, gauges: ["credit": 1], counters: [:], uptimeSeconds: 1, board: text, chip: text,
                events: 0, queueDepth: 0, droppedCommands: 0, lostEdges: 0, traceLosses: 0,
                lastTransitions: [TransitionSummary(time: 1, from: text, event: text, to: text)])
            let page = StatusPage(TurnstileApplication.self, diagram: layout).html(snapshot)
            for scalar in ["\u{1B}", "\u{07}", "\u{9B}", "\u{202E}", "\u{200B}", "\u{FEFF}", "\u{2028}", "\r"] as [Unicode.Scalar] {
                #expect(!page.unicodeScalars.contains(scalar), "U+\(String(scalar.value, radix: 16)) reached the page")
            }
            #expect(!page.contains(Self.seventyKB), "a 70 KB name reached the page whole")
        }
    }

    @Test("MQTT option errors and the control protocol's errors go through the same path")
    func errorDescriptions() async {
        await propertyCheck(count: PropertyCases.count(100), input: Self.hostile) { text in
            let errors: [String] = [
                MQTTError.invalidTopic(topic: text, problem: "is bad").description,
                ControlProtocolError.unknownCommand(text, hint: nil, commands: ["status"]).message,
                ControlProtocolError.unknownField(name: text, command: text, hint: nil).message,
                ControlProtocolError.duplicateField(name: text).message,
            ]
            for error in errors {
                #expect(Self.clean(error), "\(error.prefix(300).debugDescription)")
                #expect(error.count < Self.messageBound)
            }
        }
    }
}
