import Dispatch
import ControllerFSM
import ControllerDaemon

/// What a daemon's process does before and around its first task, for the command line's
/// `main` and ``Daemon/main(_:)`` alike.
package enum DaemonProcess {
    /// Takes the daemon's stop and reload signals and Swift's global executor, on the main
    /// thread before any task. The order matters: `dispatchMain()` (and the asynchronous `main`
    /// top-level `await` compiles to) waits in `sigsuspend` with every signal unblocked, so a
    /// stop signal that came while the daemon started — pending behind a supervisor's blocked
    /// mask, say — would be delivered there by its default action, without the outputs' stop
    /// drive, if the trap were installed later from a task on another thread.
    package static func takeSignalsAndExecutor() {
        _ = SignalTrap.daemon
        // Before the first task: the daemon's tasks then never start libdispatch's pool.
        if !DaemonExecutor.install() {
            Terminal.log("warning: Swift's global executor is already taken in this process: the daemon's tasks run on libdispatch's pool, which wakes the process once a second while idle")
        }
    }

    /// Runs `body` on Swift's executors, parks the main thread in Dispatch's main loop, and
    /// exits with the status `body` returns.
    package static func start(_ body: @escaping @Sendable () async -> Int32) -> Never {
        Task {
            Syscalls.exit(await body())
        }
        dispatchMain()
    }

    /// 0, or ``ControllerExit/outputFailed`` (said on standard error) when what was written to
    /// standard output could not be flushed (a full disk, a closed pipe).
    package static func flushedStandardOutput() -> Int32 {
        let code = Syscalls.flushStandardOutput()
        guard code != 0 else { return 0 }
        Terminal.error("cannot write standard output: \(SystemErrno.describe(code))")
        return ControllerExit.outputFailed.rawValue
    }
}
