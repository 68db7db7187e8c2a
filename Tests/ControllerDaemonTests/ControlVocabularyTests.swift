import ControllerFSMSim
import ControllerHost
import Testing
import Turnstile
@testable import ControllerDaemon

/// The control protocol read from an application's declaration: the gate (declared in the
/// tests) gets its own commands, its condition's command, its pulse and level lines, and
/// messages that list them; the turnstile keeps its wire.
@Suite("Control protocol: any application's words")
struct ControlVocabularyTests {
    private func parse<App: ControllerApplication>(_ text: String, as _: App.Type) throws(ControlProtocolError) -> ControlRequest<App> {
        try ControlRequestLine<App>(parsing: Array(text.utf8)).request
    }

    private func error<App: ControllerApplication>(_ text: String, as _: App.Type) -> ControlProtocolError? {
        if case .failure(let error) = ControlRequestLine<App>.parse(Array(text.utf8)).result { return error }
        return nil
    }

    @Test func theCommandsComeFromTheDeclaration() {
        #expect(ControlVocabulary<Gate>.commandNames == ["status", "fault", "repair", "alarm", "events", "pulse", "set"])
        #expect(ControlVocabulary<Gate>.pulseRoles == ["request", "lever"])
        #expect(ControlVocabulary<Gate>.levelRoles == ["loop"])
        // The turnstile has no level input: no `set`, and its list is the one ctl always had.
        #expect(ControlVocabulary<TurnstileApplication>.commandNames == ControlProtocolTests.turnstileCommands)
    }

    @Test("the gate's requests parse to its events and lines", arguments: [
        (#"{"v":1,"command":"fault"}"#, ControlRequest<Gate>.command(.fault)),
        (#"{"v":1,"command":"repair"}"#, .command(.repair)),
        (#"{"v":1,"command":"alarm","on":true}"#, .command(.alarmOn)),
        (#"{"v":1,"command":"alarm","on":false}"#, .command(.alarmOff)),
        (#"{"v":1,"command":"pulse","line":"request"}"#, .pulse("request")),
        (#"{"v":1,"command":"pulse","line":"lever"}"#, .pulse("lever")),
        (#"{"v":1,"command":"set","line":"loop","on":true}"#, .level("loop", on: true)),
        (#"{"v":1,"command":"set","on":false,"line":"loop"}"#, .level("loop", on: false)),
        (#"{"v":1,"command":"status"}"#, .status),
        (#"{"v":1,"command":"events","follow":true}"#, .events(follow: true)),
    ])
    func gateRequests(text: String, request: ControlRequest<Gate>) throws {
        #expect(try parse(text, as: Gate.self) == request)
        let line = ControlRequestLine<Gate>(id: 4, request: request)
        #expect(try ControlRequestLine<Gate>(parsing: line.encoded().dropLast()) == line, "what ctl sends reads back")
    }

    @Test func anotherApplicationsCommandsAreUnknownWithTheGatesListed() throws {
        let emergency = try #require(error(#"{"v":1,"command":"emergency","on":true}"#, as: Gate.self))
        #expect(emergency == .unknownCommand("emergency", hint: nil, commands: ControlVocabulary<Gate>.commandNames))
        #expect(emergency.message.hasSuffix("commands: status, fault, repair, alarm, events, pulse, set"), "\(emergency.message)")
        let typo = try #require(error(#"{"v":1,"command":"repiar"}"#, as: Gate.self))
        #expect(typo.message.contains(#"did you mean "repair"?"#), "\(typo.message)")
        // The condition's events are its command's, not commands of their own.
        #expect(error(#"{"v":1,"command":"alarmOn"}"#, as: Gate.self)?.code == "unknown_command")
        // `set` is the gate's; the turnstile, with no level input, has none.
        #expect(error(#"{"v":1,"command":"set","line":"emergency","on":true}"#, as: TurnstileApplication.self)
            == .unknownCommand("set", hint: nil, commands: ControlProtocolTests.turnstileCommands))
    }

    @Test func eachLineIsRefusedWithHowToDriveIt() throws {
        let level = try #require(error(#"{"v":1,"command":"pulse","line":"loop"}"#, as: Gate.self))
        #expect(level.code == "invalid_field")
        #expect(level.message.contains(#"one of "request", "lever" (the input line to pulse)"#), "\(level.message)")
        #expect(level.message.contains(#"the loop under the lane is a level: send "command":"set" with "line":"loop" and "on""#), "\(level.message)")
        let condition = try #require(error(#"{"v":1,"command":"pulse","line":"alarm"}"#, as: Gate.self))
        #expect(condition.message.contains(#"the fire-alarm contact is a level: send "command":"alarm" with "on""#), "\(condition.message)")
        let pulse = try #require(error(#"{"v":1,"command":"set","line":"request","on":true}"#, as: Gate.self))
        #expect(pulse.message.contains(#"the request button is a pulse: send "command":"pulse" with "line":"request""#), "\(pulse.message)")
        let typo = try #require(error(#"{"v":1,"command":"set","line":"lop","on":true}"#, as: Gate.self))
        #expect(typo.message.contains(#"did you mean "loop"?"#), "\(typo.message)")
        // The turnstile's fire alarm, as before: a level, with the command that drives it.
        let alarm = try #require(error(#"{"v":1,"command":"pulse","line":"emergency"}"#, as: TurnstileApplication.self))
        #expect(alarm.message.contains(#"is a level: send "command":"emergency" with "on""#), "\(alarm.message)")
    }

    @Test func fieldsAreTheCommandsOwn() {
        #expect(error(#"{"v":1,"command":"set","line":"loop"}"#, as: Gate.self)
            == .missingField(name: "on", command: "set", expected: "true or false: true to make the loop line active, false inactive"))
        #expect(error(#"{"v":1,"command":"set","on":true}"#, as: Gate.self)?.code == "missing_field")
        #expect(error(#"{"v":1,"command":"alarm"}"#, as: Gate.self)?.code == "missing_field")
        #expect(error(#"{"v":1,"command":"alarm","on":"yes"}"#, as: Gate.self)?.code == "invalid_field")
        #expect(error(#"{"v":1,"command":"repair","on":true}"#, as: Gate.self)
            == .unknownField(name: "on", command: "repair", hint: nil))
        #expect(error(#"{"v":1,"command":"set","line":"loop","on":true,"lin":"x"}"#, as: Gate.self)
            == .unknownField(name: "lin", command: "set", hint: #"did you mean "line"?"#))
    }

    @Test func aVersionIsRefusedInTheDaemonsName() throws {
        let refusal = try #require(error(#"{"v":9,"command":"status"}"#, as: Gate.self))
        #expect(refusal == .unsupportedVersion(found: "9", daemon: "gated"))
        #expect(refusal.message.contains("this gated speaks version 1"), "\(refusal.message)")
    }

    /// Pieces a request line is made of, so that random lines are often nearly right (the
    /// interesting ones) as well as garbage.
    private static let pieces = [
        "{", "}", "[", "]", ",", ":", " ", "\"", "\\", "\"v\"", "1", "2", "-1", "1.5", "true", "false", "null",
        "\"command\"", "\"status\"", "\"repair\"", "\"fault\"", "\"emergency\"", "\"alarm\"", "\"pulse\"", "\"set\"",
        "\"events\"", "\"line\"", "\"on\"", "\"follow\"", "\"id\"", "\"coin\"", "\"loop\"", "\"request\"", "\"\\u0076\"",
        "\u{FF}", "\u{0}", "é", "9007199254740993",
    ]

    @Test("any bytes are a request or a protocol error for either application, and a request reads back as itself")
    func anyBytesParse() {
        let seed = UInt64.random(in: 1...UInt64.max)
        var generator = SplitMix64(seed: seed)  // a failing seed repeats
        for _ in 0..<3_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...24, using: &generator) {
                if Bool.random(using: &generator) {
                    bytes += Array(Self.pieces.randomElement(using: &generator)!.utf8)
                } else {
                    bytes.append(UInt8.random(in: 0...255, using: &generator))
                }
            }
            check(bytes, as: Gate.self, seed: seed)
            check(bytes, as: TurnstileApplication.self, seed: seed)
        }
    }

    private func check<App: ControllerApplication>(_ bytes: [UInt8], as _: App.Type, seed: UInt64) {
        // The parser throws ControlProtocolError only (typed): reaching either branch is the
        // property; a crash would end the test.
        let (_, result) = ControlRequestLine<App>.parse(bytes)
        switch result {
        case .success(let line):
            #expect((try? ControlRequestLine<App>(parsing: line.encoded().dropLast())) == line, "seed \(seed): \(bytes)")
        case .failure(let error):
            #expect(!error.message.isEmpty && !error.code.isEmpty, "seed \(seed): \(bytes)")
        }
    }
}
