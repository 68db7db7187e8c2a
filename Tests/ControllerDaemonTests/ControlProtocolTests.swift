import ControllerFSMSim
import Testing
import ControllerHost
import Turnstile
import TurnstileTestSupport
@testable import ControllerDaemon

@Suite("Control protocol")
struct ControlProtocolTests {
    /// The turnstile's commands on the wire, as `ctl` has always listed them.
    static let turnstileCommands = ["status", "repair", "fault", "emergency", "events", "pulse"]

    private func parse(_ text: String) throws(ControlProtocolError) -> TurnstileRequestLine {
        try TurnstileRequestLine(parsing: Array(text.utf8))
    }

    private func error(_ text: String) -> ControlProtocolError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test("every command parses to its request", arguments: [
        (#"{"v":1,"command":"status"}"#, TurnstileRequest.status),
        (#"{"v":1,"command":"repair"}"#, .command(.repair)),
        (#"{"v":1,"command":"fault"}"#, .command(.fault)),
        (#"{"v":1,"command":"emergency","on":true}"#, .command(.emergencyOn)),
        (#"{"v":1,"command":"emergency","on":false}"#, .command(.emergencyOff)),
        (#"{"v":1,"command":"events"}"#, .events(follow: false)),
        (#"{"v":1,"command":"events","follow":true}"#, .events(follow: true)),
        (#"{"v":1,"command":"pulse","line":"coin"}"#, .pulse(.coin)),
        (#"{"v":1,"command":"pulse","line":"push"}"#, .pulse(.push)),
        (#" { "command" : "pulse" , "line":"service", "v":1 } "#, .pulse(.service)),
    ])
    func validRequests(text: String, request: TurnstileRequest) throws {
        #expect(try parse(text) == TurnstileRequestLine(request: request))
    }

    @Test func theIdIsKept() throws {
        #expect(try parse(#"{"v":1,"id":42,"command":"status"}"#).id == 42)
        #expect(TurnstileRequestLine.parse(Array(#"{"v":1,"id":7,"command":"stauts"}"#.utf8)).id == 7)
    }

    @Test("what ctl sends parses back to the same request", arguments: [
        TurnstileRequest.status, .command(.repair), .command(.fault), .command(.emergencyOn), .command(.emergencyOff),
        .events(follow: false), .events(follow: true), .pulse(.coin), .pulse(.push), .pulse(.service),
    ])
    func encodeRoundTrip(request: TurnstileRequest) throws {
        let line = TurnstileRequestLine(id: 9, request: request)
        let bytes = line.encoded()
        #expect(bytes.last == UInt8(ascii: "\n"))
        #expect(try TurnstileRequestLine(parsing: bytes.dropLast()) == line)
    }

    @Test func malformedJSON() {
        for text in ["{", "{nope}", "", "status", #"{"v":1,"command":"status""#, "\u{FF}"] {
            #expect(error(text) == .malformedJSON, "\(text)")
        }
        #expect(TurnstileRequestLine.parse([0xFF, 0xFE, 0x7B]).result == .failure(.malformedJSON))
    }

    @Test func notAnObject() {
        #expect(error("[1,2]") == .notAnObject(found: "an array"))
        #expect(error(#""status""#) == .notAnObject(found: #"the string "status""#))
        #expect(error("1") == .notAnObject(found: "1"))
        #expect(error("null") == .notAnObject(found: "null"))
        #expect(error("[1]")?.code == "not_an_object")
    }

    @Test func unsupportedVersionNamesTheSupportedOnes() throws {
        let refusal = try #require(error(#"{"v":2,"command":"status"}"#))
        #expect(refusal == .unsupportedVersion(found: "2", daemon: "turnstiled"))
        #expect(refusal.code == "unsupported_version")
        #expect(refusal.message.contains("speaks version 1"))
        #expect(error(#"{"command":"status"}"#) == .missingField(name: "v", command: nil, expected: "a protocol version number, \"v\":1"))
        #expect(error(#"{"v":"1","command":"status"}"#)?.code == "invalid_field")
        #expect(error(#"{"v":1.5,"command":"status"}"#)?.code == "invalid_field")
    }

    @Test func unknownCommandSuggestsTheNearest() throws {
        let refusal = try #require(error(#"{"v":1,"command":"stauts"}"#))
        #expect(refusal == .unknownCommand("stauts", hint: #"did you mean "status"?"#, commands: Self.turnstileCommands))
        #expect(refusal.code == "unknown_command")
        #expect(refusal.message.contains("commands: status, repair, fault, emergency, events, pulse"))
        #expect(error(#"{"v":1,"command":"reboot"}"#) == .unknownCommand("reboot", hint: nil, commands: Self.turnstileCommands))
    }

    @Test func missingAndInvalidFields() {
        #expect(error(#"{"v":1}"#)?.code == "missing_field")
        #expect(error(#"{"v":1,"command":7}"#) == .invalidField(name: "command", found: "7", expected: #"one of "status", "repair", "fault", "emergency", "events", "pulse""#))
        #expect(error(#"{"v":1,"command":"emergency"}"#)?.code == "missing_field")
        #expect(error(#"{"v":1,"command":"emergency","on":1}"#)?.code == "invalid_field")
        #expect(error(#"{"v":1,"command":"emergency","on":"true"}"#)?.code == "invalid_field")
        #expect(error(#"{"v":1,"command":"events","follow":null}"#)?.code == "invalid_field")
        #expect(error(#"{"v":1,"command":"pulse"}"#)?.code == "missing_field")
        #expect(error(#"{"v":1,"command":"pulse","line":["coin"]}"#)?.code == "invalid_field")
        #expect(error(#"{"v":1,"id":-1,"command":"status"}"#)?.code == "invalid_field")
        #expect(error(#"{"v":1,"id":"a","command":"status"}"#)?.code == "invalid_field")
    }

    @Test func pulseLinesAreThePulsedInputs() throws {
        let alarm = try #require(error(#"{"v":1,"command":"pulse","line":"emergency"}"#))
        #expect(alarm.code == "invalid_field")
        #expect(alarm.message.contains("\"command\":\"emergency\""))
        let typo = try #require(error(#"{"v":1,"command":"pulse","line":"con"}"#))
        #expect(typo.message.contains(#"did you mean "coin"?"#))
    }

    @Test func fieldsTheCommandDoesNotTakeAreRefused() {
        #expect(error(#"{"v":1,"command":"events","folow":true}"#) == .unknownField(name: "folow", command: "events", hint: #"did you mean "follow"?"#))
        #expect(error(#"{"v":1,"command":"status","on":true}"#)?.code == "unknown_field")
    }

    @Test("a field given twice is refused by name, whichever the decoder would have kept", arguments: [
        (#"{"v":1,"command":"pulse","line":"coin","line":"push"}"#, "line"),
        (#"{"v":1,"command":"status","command":"pulse","line":"coin"}"#, "command"),
        (#"{"v":1,"v":1,"command":"status"}"#, "v"),
        // The same key spelt with an escape is the same key.
        (#"{"v":1,"command":"status","\u0063ommand":"repair"}"#, "command"),
        (#"{ "id" : 1 , "v":1, "command":"status", "id":2 }"#, "id"),
    ])
    func duplicateFieldsAreRefused(line: String, key: String) {
        #expect(error(line) == .duplicateField(name: key), "\(line)")
        #expect(error(line)?.message.contains("\"\(key)\"") == true)
    }

    @Test func keysInsideValuesAreNotTheRequestsFields() {
        // A string value that looks like a key, and a nested object's keys, are not duplicates.
        #expect(error(#"{"v":1,"command":"status","id":3}"#) == nil)
        #expect(error(#"{"v":1,"command":"pulse","line":"coin","x":{"line":1,"line":2}}"#)?.code == "unknown_field")
        #expect(error(#"{"v":1,"command":"pulse","line":"line"}"#)?.code == "invalid_field")
    }

    @Test("any request with one of its fields repeated is refused naming it (random order, spacing and values)")
    func randomDuplicatesAreRefused() {
        let seed = UInt64.random(in: 1...UInt64.max)
        var generator = SplitMix64(seed: seed)  // a failing seed repeats
        for _ in 0..<500 {
            var fields = [(#""v""#, "1"), (#""command""#, #""pulse""#), (#""line""#, #""coin""#), (#""id""#, "7")]
            let repeated = fields[Int.random(in: 0..<fields.count, using: &generator)]
            let values = ["1", #""push""#, "true", "null", "[1,{\"v\":2}]", #"{"command":"x"}"#]
            fields.append((repeated.0, values.randomElement(using: &generator)!))
            fields.shuffle(using: &generator)
            let space = [" ", "", "\t"].randomElement(using: &generator)!
            let line = "{" + fields.map { "\(space)\($0.0)\(space):\(space)\($0.1)" }.joined(separator: ",") + "}"
            let name = String(repeated.0.dropFirst().dropLast())
            #expect(error(line) == .duplicateField(name: name), "seed \(seed): \(line)")
        }
    }

    @Test func tooLongIsRefusedBeforeJSON() {
        let padding = String(repeating: " ", count: ControlProtocol.maxRequestBytes)
        #expect(error(#"{"v":1,"command":"status"}"# + padding) == .requestTooLong(limit: ControlProtocol.maxRequestBytes))
        #expect(error(#"{"v":1,"command":"status"}"# + padding.dropFirst(30)) == nil)
    }

    @Test func deepNestingIsNotDescended() {
        let deep = String(repeating: "[", count: 2000) + String(repeating: "]", count: 2000)
        #expect(error(#"{"v":1,"command":"status","x":"# + deep + "}")?.code != nil)
        #expect(error(deep)?.code != nil)
    }

    @Test func messagesNeverCarryRawControlCharacters() throws {
        let refusal = try #require(error("{\"v\":1,\"command\":\"\\u001b[31mred\"}"))
        #expect(!refusal.message.unicodeScalars.contains { $0.value < 0x20 })
    }

    @Test("replies encode and decode to themselves", arguments: [
        ControlReply.status(Fixtures.snapshot), .accepted("repair"), .transitions(Fixtures.transitions), .transitions([]),
        .event(Fixtures.transitions[0]), .failure(ControlFailure(code: "x", message: "y")),
    ])
    func replyRoundTrip(reply: ControlReply) throws {
        let line = ControlReplyLine(id: 3, reply: reply)
        let bytes = line.encoded(daemon: "turnstiled")
        #expect(bytes.last == UInt8(ascii: "\n"))
        #expect(!bytes.dropLast().contains(UInt8(ascii: "\n")))
        #expect(try ControlReplyLine(parsing: bytes.dropLast(), daemon: "turnstiled") == line)
    }

    @Test func errorRepliesHaveTheDocumentedShape() {
        let text = String(decoding: ControlReplyLine(reply: .failure(ControlFailure(.malformedJSON))).encoded(daemon: "turnstiled"), as: UTF8.self)
        #expect(text.hasPrefix(#"{"error":{"code":"malformed_json","message":"#))
        #expect(text.hasSuffix(#""ok":false,"v":1}"# + "\n"))
    }

    @Test func aReplyFromAnotherVersionIsRefused() {
        #expect(throws: ControlProtocolError.unsupportedVersion(found: "2", daemon: "turnstiled")) {
            try ControlReplyLine(parsing: Array(#"{"v":2,"ok":true,"accepted":"x"}"#.utf8), daemon: "turnstiled")
        }
    }
}
