@testable import ControllerDaemon
import ControllerFSM
import ControllerHost
import Foundation
import Testing
import Turnstile

/// A refusal that advises a request advises one the daemon takes. barrierd
/// refused `{"command":"set","line":"up_limit",...}` and then advised exactly that request (its
/// limit switches follow the simulated arm). Generated over every application here (with and
/// without a plant that drives a level line), every input role, `pulse` and `set`: each advised
/// request is sent back and must be accepted.
@Suite("control refusals advise only requests the daemon takes")
struct ControlAdviceTests {
    private func reply<App: ControllerApplication>(_ text: String, as _: App.Type) -> ControlProtocolError? {
        if case .failure(let error) = ControlRequestLine<App>.parse(Array(text.utf8)).result { return error }
        return nil
    }

    /// The request a message advises (`send "command":"set" with "line":"loop" and "on"`), as JSON.
    private func advised(in message: String) -> String? {
        guard let range = message.range(of: #"send "command":"[a-z_]+"( with "line":"[a-z_]+")?( and "on"| with "on")?"#, options: .regularExpression) else { return nil }
        var advice = String(message[range].dropFirst("send ".count))
        advice = advice.replacingOccurrences(of: #" and "on""#, with: #","on":true"#)
        advice = advice.replacingOccurrences(of: #" with "on""#, with: #","on":true"#)
        advice = advice.replacingOccurrences(of: " with ", with: ",")
        return #"{"v":1,"# + advice + "}"
    }

    private func everyAdviceIsTaken<App: ControllerApplication>(_: App.Type) -> Int {
        var checked = 0
        for input in App.inputs {
            for request in [#"{"v":1,"command":"pulse","line":"\#(input.role)"}"#, #"{"v":1,"command":"set","line":"\#(input.role)","on":true}"#] {
                guard let refusal = reply(request, as: App.self), let advice = advised(in: refusal.message) else { continue }
                #expect(advice != request, "\(App.name): \(request) refused and then advised again: \(refusal.message)")
                #expect(reply(advice, as: App.self) == nil, "\(App.name): the advice \(advice) after \(request) is refused too: \(refusal.message)")
                checked += 1
            }
        }
        return checked
    }

    @Test func everyAdvisedRequestIsAccepted() throws {
        #expect(everyAdviceIsTaken(Gate.self) > 0)
        #expect(everyAdviceIsTaken(TurnstileApplication.self) > 0)
        _ = everyAdviceIsTaken(PlantedGate.self)
    }

    @Test func aLineThePlantDrivesIsNotAdvisedForSet() throws {
        let refusal = try #require(reply(#"{"v":1,"command":"pulse","line":"loop"}"#, as: PlantedGate.self))
        #expect(!refusal.message.contains(#""command":"set""#), "\(refusal.message)")
        #expect(refusal.message.contains("follows the simulated plant"), "\(refusal.message)")
    }
}
