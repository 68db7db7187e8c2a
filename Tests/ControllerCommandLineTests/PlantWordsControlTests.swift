import ControllerTestSupport
@testable import ControllerCommandLine
@testable import ControllerRuntime
@testable import ControllerDaemon
import ControllerHost
import Logging
import Testing
import Turnstile

/// The simulated plant's words over the control protocol: `ctl plant …` and
/// the MQTT command topics read them as a scenario does, a simulated board plays them, a real
/// board refuses them. On the shuttle, whose track has words (`track jammed`).
@Suite("Plant words over ctl and MQTT")
struct PlantWordsControlTests {
    typealias Shuttle = ShuttleBackwardFirst

    static func parsed<App: ControllerApplication>(_ text: String, as _: App.Type) -> Result<ControlRequest<App>, ControlProtocolError> {
        ControlRequestLine<App>.parse(Array(text.utf8)).result.map(\.request)
    }

    @Test("a request carries the plant's words, parsed as a scenario's line, and encodes back to itself")
    func parses() throws {
        #expect(try Self.parsed(#"{"v":1,"command":"plant","words":"track jammed"}"#, as: Shuttle.self).get() == .plant(.jammed))
        #expect(try Self.parsed(#"{"v":1,"command":"plant","words":" track   clear "}"#, as: Shuttle.self).get() == .plant(.clear))
        for action: ShuttleTrack<Shuttle>.Action in [.jammed, .clear] {
            let line = ControlRequestLine<Shuttle>(id: 3, request: .plant(action))
            #expect(try ControlRequestLine<Shuttle>(parsing: line.encoded()) == line)
        }
        #expect(ControlVocabulary<Shuttle>.commandNames.last == "plant")
        // An application without a plant's words has no such command.
        #expect(!ControlVocabulary<TurnstileApplication>.commandNames.contains("plant"))
        guard case .failure(.unknownCommand("plant", _, _)) = Self.parsed(#"{"v":1,"command":"plant","words":"x"}"#, as: TurnstileApplication.self) else {
            Issue.record("the turnstile has no plant words: plant must be an unknown command")
            return
        }
    }

    @Test("words the plant does not know are refused with the ones it does, and why", arguments: [
        (#"{"v":1,"command":"plant","words":"track"}"#, "missing jammed|clear"),
        (#"{"v":1,"command":"plant","words":"conveyor stop"}"#, "is not a word of the shuttle's simulated plant"),
        (#"{"v":1,"command":"plant","words":"track sideways"}"#, "is not jammed or clear"),
        (#"{"v":1,"command":"plant","words":"track jammed now"}"#, "unexpected"),
        (#"{"v":1,"command":"plant","words":""}"#, "no plant words given"),
        (#"{"v":1,"command":"plant","words":7}"#, "the simulated plant's words"),
        (#"{"v":1,"command":"plant"}"#, "words"),
    ])
    func refusesUnknownWords(request: String, reason: String) {
        guard case .failure(let error) = Self.parsed(request, as: Shuttle.self) else {
            Issue.record("\(request) was taken")
            return
        }
        #expect("\(error)".contains(reason) && "\(error)".contains("words"), "\(error)")
        if !request.hasSuffix(#""plant"}"#) { #expect("\(error)".contains(#""track jammed", "track clear""#), "\(error)") }
    }

    @Test("ctl plant reads the words after the command; wrong ones are a usage error naming the right ones")
    func ctlWords() throws {
        let ctl = try Ctl<Shuttle>.parse(["plant", "track", "jammed"])
        #expect(try ctl.request() == .plant(.jammed))
        #expect {
            _ = try Ctl<Shuttle>.parse(["plant", "track", "up"])
        } throws: { error in
            Ctl<Shuttle>.message(for: error).contains("\"up\" is not jammed or clear; the words: track jammed, track clear")
        }
        #expect(Ctl<Shuttle>.outcome(of: .plant(.clear), error: .refused(ControlFailure(code: "refused", message: "no")), sent: true)
            .hasPrefix("plant track clear not applied"))
    }

    static func handler(simulated: Bool) throws -> (ControlHandler<Shuttle>, DaemonInbox<Shuttle>) {
        let inbox = try DaemonInbox<Shuttle>(capacity: 4)
        let status = StatusHub<Shuttle>(board: "shuttle", chip: "sim", inbox: nil)
        status.publishPhase(.running, degradedReason: nil)
        let handler = ControlHandler(
            status: status, inbox: inbox, simulated: simulated, warnings: DaemonWarnings(logger: Logger(label: "plant-words"), program: "shuttled"))
        return (handler, inbox)
    }

    @Test("a simulated board takes the words into the event loop's inbox; a real board refuses them and says why")
    func simulatedOnly() throws {
        let (simulated, inbox) = try Self.handler(simulated: true)
        #expect(simulated.answer(.plant(.jammed), from: "MQTT") == .accepted("plant track jammed"))
        #expect(inbox.take() == .plant(.jammed))
        let (real, realInbox) = try Self.handler(simulated: false)
        guard case .failure(let failure) = real.answer(.plant(.jammed), from: "uid 1000") else {
            Issue.record("a real board took plant words")
            return
        }
        #expect(failure.code == "refused" && failure.message.contains("acts on the simulated plant") && failure.message.contains("real"), "\(failure)")
        #expect(realInbox.take() == nil, "nothing reaches the loop")
    }
}
