#if canImport(Glibc)
import ControllerTestSupport
import Glibc
#endif
@testable import ControllerRuntime
import ControllerDaemon
import ControllerFSM
import ControllerHost
import Foundation
import Logging
import Testing
import Turnstile

/// A reload as systemd's protocol has it, in-process against a fake `NOTIFY_SOCKET`:
/// `RELOADING=1` with `MONOTONIC_USEC` before the board file is read again, then `READY=1` with a
/// status saying whether it was taken or refused.
@Suite("The reload protocol (sd_notify)")
struct ReloadProtocolTests {
    static let patience: Duration = TestTimeouts.daemon

    struct Fixture {
        let directory: TemporaryDirectory
        let listener: NotifyListener
        let reload: BoardReload<TurnstileApplication>
        let inbox: DaemonInbox<TurnstileApplication>
        let board: String

        init() throws {
            directory = try TemporaryDirectory()
            let socket = directory.url.appendingPathComponent("notify.sock").path
            listener = try NotifyListener(path: socket)
            board = try directory.file("board.toml", try String(contentsOfFile: repositoryPath("boards/sim.toml"), encoding: .utf8))
            inbox = try DaemonInbox<TurnstileApplication>(capacity: 4)
            reload = BoardReload(
                boardPath: board, running: try Board<TurnstileApplication>.loadRunnable(path: board), inbox: inbox,
                logger: Logger(label: "reload-test"), notifier: SystemdNotifier(environment: ["NOTIFY_SOCKET": socket]),
                clock: ManualClock(start: MachineInstant(nanoseconds: 12_345_678_000)))
        }

        func messages() -> [String] {
            var messages: [String] = []
            while let message = listener.receive(until: ContinuousClock.now + .milliseconds(200), where: { _ in true }) {
                messages.append(message)
            }
            return messages
        }
    }

    @Test("a reload taken: RELOADING=1 with the monotonic time in microseconds, then READY=1")
    func taken() throws {
        let fixture = try Fixture()
        try String(contentsOfFile: fixture.board, encoding: .utf8).replacingOccurrences(of: #"relock_timeout = "5s""#, with: #"relock_timeout = "7s""#)
            .write(toFile: fixture.board, atomically: true, encoding: .utf8)
        fixture.reload()
        let messages = fixture.messages()
        try #require(messages.count == 2, "\(messages)")
        #expect(messages[0].hasPrefix("RELOADING=1\nMONOTONIC_USEC=12345678\nSTATUS=reloading: "), "\(messages[0])")
        #expect(messages[1].hasPrefix("READY=1\nSTATUS=running: reloaded "), "\(messages[1])")
        #expect(fixture.inbox.depth == 1, "the new timings went to the event loop")
    }

    @Test("a reload refused (new wiring, or a file that does not read): READY=1 saying so, the running configuration kept")
    func refused() throws {
        let fixture = try Fixture()
        try String(contentsOfFile: fixture.board, encoding: .utf8).replacingOccurrences(of: "[outputs.inhibit]\nline = 7", with: "[outputs.inhibit]\nline = 3")
            .write(toFile: fixture.board, atomically: true, encoding: .utf8)
        fixture.reload()
        var messages = fixture.messages()
        try #require(messages.count == 2, "\(messages)")
        #expect(messages[0].hasPrefix("RELOADING=1\nMONOTONIC_USEC="))
        #expect(messages[1].hasPrefix("READY=1\nSTATUS=running: reload refused (") && messages[1].contains("[outputs] lines changed"), "\(messages[1])")
        try "[board\n".write(toFile: fixture.board, atomically: true, encoding: .utf8)
        fixture.reload()
        messages = fixture.messages()
        try #require(messages.count == 2, "\(messages)")
        #expect(messages[1].hasPrefix("READY=1\nSTATUS=running: reload refused ("), "\(messages[1])")
        #expect(fixture.inbox.depth == 0)
    }
}
