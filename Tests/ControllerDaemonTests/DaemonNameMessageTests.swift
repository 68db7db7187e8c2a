import ControllerFSM
import ControllerFSMSim
import ControllerHost
import Foundation
import Testing
import Turnstile
@testable import ControllerDaemon

#if canImport(Glibc)
import Glibc
#endif

/// The control socket's messages name the daemon of the application they serve: the gate's
/// (`gated`) for the gate, the turnstile's texts as they were. In the control server's suite:
/// they use its scratch socket, at which its faults are armed.
extension ControlServerTests {
    @Test func aClientOfTheGateNamesGated() throws {
        let notRunning = #expect(throws: ControlClientError.self) { try ControlClient<Gate>(path: scratch.socket) }
        #expect(notRunning == .notRunning(path: scratch.socket, daemon: "gated"))
        #expect(notRunning?.description == "cannot connect to \(scratch.socket): no control socket there; is gated running? is --control-socket the same? (gated ctl --socket PATH)")

        let turnstile = #expect(throws: ControlClientError.self) { try TurnstileClient(path: scratch.socket) }
        #expect(turnstile?.description == "cannot connect to \(scratch.socket): no control socket there; is turnstiled running? is --control-socket the same? (turnstiled ctl --socket PATH)")

        let server = try startGate()
        defer { server.stop() }
        let client = try ControlClient<Gate>(path: scratch.socket)
        Syscalls.arm(.clientSend, at: place, errno: EPIPE)
        let sendError = #expect(throws: ControlClientError.self) { try client.send(ControlRequestLine<Gate>(request: .status)) }
        #expect(sendError == .system(path: scratch.socket, call: "send", errno: EPIPE, daemon: "gated"))
        #expect(sendError?.description == "cannot talk to gated on \(scratch.socket): send failed: Broken pipe")
    }

    @Test func aServerOfTheGateNamesGated() throws {
        let missing = scratch.path + "/absent/control.sock"
        let noDirectory = #expect(throws: ControlServerError.self) { try ControlServer(path: missing, group: nil, handler: Self.gateHandler) }
        #expect(noDirectory == .directoryMissing(path: missing, directory: scratch.path + "/absent", daemon: "gated"))
        #expect(noDirectory?.description.contains("(systemd: RuntimeDirectory=gated)") == true)

        let server = try startGate()
        let inUse = #expect(throws: ControlServerError.self) { try self.startGate() }
        #expect(inUse == .inUse(path: scratch.socket, daemon: "gated"))
        #expect(inUse?.description == "another process answers on the control socket \(scratch.socket) (is gated already running?); stop it or choose another --control-socket")
        server.stop()

        _ = FileManager.default.createFile(atPath: scratch.socket, contents: Data("keep me".utf8))
        let notASocket = #expect(throws: ControlServerError.self) { try self.startGate() }
        #expect(notASocket?.description == "\(scratch.socket) exists and is not a socket; gated will not remove it: move it away or choose another --control-socket")
        for error in [noDirectory, inUse, notASocket] {
            #expect(error?.description.contains("turnstile") == false)
        }
    }

    /// Every message of the client and the server that names a daemon names the one given, and
    /// none says "turnstile" for another application.
    @Test(arguments: ["gated", "barrierd", "gate-keeperd"])
    func everyControlMessageNamesItsDaemon(daemon: String) {
        let failure = ControlFailure(code: "permission_denied", message: "permission denied: user 1000 may not control \(daemon)")
        let client: [ControlClientError] = [
            .notRunning(path: "/s", daemon: daemon), .permissionDenied(path: "/s", reply: nil, daemon: daemon),
            .permissionDenied(path: "/s", reply: failure, daemon: daemon), .timedOut(path: "/s", seconds: 5, daemon: daemon),
            .badReply(path: "/s", .malformedJSON, daemon: daemon), .system(path: "/s", call: "read", errno: EIO, daemon: daemon),
        ]
        let server: [ControlServerError] = [
            .directoryMissing(path: "/d/s", directory: "/d", daemon: daemon), .notASocket(path: "/s", daemon: daemon),
            .inUse(path: "/s", daemon: daemon), .systemCall(call: "bind", path: "/s", errno: EACCES, daemon: daemon),
        ]
        for text in client.map(\.description) + server.map(\.description) {
            #expect(text.contains(daemon), "\(text)")
            #expect(!text.lowercased().contains("turnstile"), "\(text)")
        }
        for text in [ControlClientError.pathTooLong(path: "/s").description, ControlServerError.unknownGroup("g").description,
                     ControlServerError.pathTooLong(path: "/s", limit: 107).description] {
            #expect(!text.lowercased().contains("turnstile"), "\(text)")
        }
    }

    private static let gateHandler: ControlServer.Handler<Gate> = { _, _ in .accepted("request") }

    private func startGate() throws -> ControlServer {
        try ControlServer(path: scratch.socket, group: nil, handler: Self.gateHandler)
    }
}

/// The board file's and the GPIO port's messages, in the gate's words.
@Suite("Messages name the application's daemon and roles")
struct ApplicationWordsTests {
    static let tooDeep = "[" + Array(repeating: "a", count: 20).joined(separator: ".") + "]\n"

    @Test func aBoardNestedTooDeeplyNamesTheApplicationsDeepestKey() {
        let gate = #expect(throws: BoardFileError.self) { try Board<Gate>.parse(Self.tooDeep, file: "gate.toml") }
        #expect(gate?.hint == "a board file's deepest key is inputs.request.line")
        let turnstile = #expect(throws: BoardFileError.self) { try Board<TurnstileApplication>.parse(Self.tooDeep, file: "t.toml") }
        #expect(turnstile?.hint == "a board file's deepest key is inputs.coin.line")
    }

    @Test func aLineTheChipLacksNamesTheDaemonsLinesCommand() {
        let chip = SimChip(name: "simchip0", label: "gate-sim", lines: ["REQ", "LEVER"], clock: ManualClock())
        let gate = #expect(throws: GPIOError.self) { try Controller<Gate, SimChip>.offset(of: .name("NOPE"), on: chip) }
        #expect(gate == .lineNotFound(chip: "simchip0", name: "NOPE", available: ["REQ", "LEVER"], program: "gated"))
        #expect(gate?.description.contains("(`gated lines --chip simchip0` shows them)") == true)
        let turnstile = #expect(throws: GPIOError.self) { try Controller<TurnstileApplication, SimChip>.offset(of: .name("NOPE"), on: chip) }
        #expect(turnstile?.description.contains("(`turnstiled lines --chip simchip0` shows them)") == true)
    }
}
