@testable import ControllerRuntime
import ControllerDaemon
import ControllerTestSupport
import Logging
import Testing
import Turnstile

#if canImport(Glibc)
import Glibc
#endif

/// A controller's own `main`, with no command line: the options built in code, the daemon run
/// by the runtime, the process's exit status from what it throws.
@Suite("A main of its own runs the daemon without the command line")
struct OwnMainTests {
    /// The whole process as `Daemon.main` runs it (compiled here; never called: it exits).
    static func ownMain() -> Never {
        var options = RunOptions(board: "/etc/turnstiled/board.toml")
        options.database = "/var/lib/turnstiled/counts.sqlite"
        options.controlSocket = "/run/turnstiled/control.sock"
        Daemon<TurnstileApplication>.main(options)
    }

    /// The same from asynchronous code that took the signals itself (compiled here; never
    /// called: it exits).
    static func ownAsynchronousMain(_ options: RunOptions) async -> Never {
        do {
            try await Daemon<TurnstileApplication>(options).run()
        } catch {
            exit(error.rawValue)
        }
        exit(0)
    }

    @Test("options that do not hold: run refuses them with status 64, whoever built them")
    func refusedBeforeTheProcessIsTouched() async {
        var options = RunOptions(board: "b.toml")
        options.retentionDays = 7
        let thrown = await #expect(throws: ControllerExit.self) {
            try await Daemon<TurnstileApplication>(options).run()
        }
        #expect(thrown == .usage)
        // The words said on standard error come with it, and the error behind them, for a
        // `main` that logs elsewhere or acts on the case.
        #expect(thrown?.reason?.contains("--retention-days") == true, "\(String(describing: thrown?.reason))")
        #expect(thrown?.cause is DaemonOptionError)
        #expect(thrown.map { "\($0)" }?.hasSuffix("(exit status \(ControllerExit.usage.rawValue))") == true)
    }

    @Test("a board that cannot be read stops the run with status 2, the file named in the reason")
    func aMissingBoardSaysWhichFile() async {
        let options = RunOptions(board: "/nonexistent/board.toml")
        let thrown = await #expect(throws: ControllerExit.self) {
            try await Daemon<TurnstileApplication>(options).serve(logger: Logger(label: "own-main"), signals: AsyncStream { _ in })
        }
        #expect(thrown == .badInput)
        #expect(thrown?.reason?.contains("/nonexistent/board.toml") == true, "\(String(describing: thrown?.reason))")
        #expect(thrown?.cause != nil)
    }
}
