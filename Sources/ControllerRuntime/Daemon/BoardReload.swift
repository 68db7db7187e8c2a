import ControllerDaemon
import ControllerFSM
import Logging
import ControllerHost
import ControllerSimulation

/// What SIGHUP does: reads the board file again and, when only its application section (the
/// turnstile's `[turnstile]` timings and fail mode) changed, hands it to the event loop; a board
/// whose lines changed is refused (that needs a restart) and the running configuration stays.
///
/// systemd hears it as its reload protocol says: `RELOADING=1` with `MONOTONIC_USEC` before the
/// file is read, `READY=1` after, with a `STATUS=` that says whether the reload was taken or
/// refused (and why), as the journal does.
struct BoardReload<App: ControllerApplication>: Sendable {
    let boardPath: String
    let running: Board<App>
    let inbox: DaemonInbox<App>
    let logger: Logger
    let notifier: SystemdNotifier
    let clock: any MachineClock

    func callAsFunction() {
        notifier.reloading(at: clock.now(), status: "reloading: reading \(boardPath)")
        let board: Board<App>
        do {
            // Read as `check` and `run` read it: one validation for every entry point.
            board = try Board<App>.loadRunnable(path: boardPath)
        } catch {
            refuse("\(error)")
            return
        }
        guard let difference = running.wiringDifference(from: board) else {
            inbox.post(.retime(board.settings))
            let settings = App.settings.keys.map { "\($0.name) \($0.text(in: board.settings))" }
            logger.notice("SIGHUP: \(boardPath) read again: \(settings.joined(separator: ", "))", metadata: JournalRecordKind.reload.metadata())
            notifier.ready(status: "running: reloaded \(boardPath)")
            return
        }
        refuse("\(boardPath) refused: \(difference) changed, which needs a restart (systemctl restart \(App.daemonName))")
    }

    private func refuse(_ reason: String) {
        logger.warning("SIGHUP: \(reason); the running configuration stays", metadata: JournalRecordKind.reload.metadata())
        notifier.ready(status: "running: reload refused (\(reason)); the running configuration stays")
    }
}

extension Board {
    /// What differs between two boards beyond their application section, if anything.
    func wiringDifference(from other: Board) -> String? {
        if chip != other.chip { return "the chip" }
        if backend != other.backend { return "the backend" }
        if consumer != other.consumer { return "the consumer" }
        if inputs != other.inputs { return "the [inputs] lines" }
        if outputs != other.outputs { return "the [outputs] lines" }
        if sim != other.sim { return "the [sim] section" }
        return nil
    }
}
