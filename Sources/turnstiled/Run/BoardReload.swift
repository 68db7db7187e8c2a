import ControllerDaemon
import Logging
import ControllerHost
import Turnstile

/// What SIGHUP does to the turnstile: reads the board file again and, when only its
/// `[turnstile]` timings and fail mode changed, hands them to the event loop; a board whose
/// lines changed is refused (that needs a restart) and the running configuration stays.
struct BoardReload: Sendable {
    let boardPath: String
    let running: BoardFile
    let inbox: CommandInbox
    let logger: Logger

    func callAsFunction() {
        let board: BoardFile
        do {
            board = try BoardFile.load(path: boardPath)
        } catch {
            logger.warning("SIGHUP: \(error); the running configuration stays")
            return
        }
        guard let difference = running.wiringDifference(from: board) else {
            inbox.post(.retime(board.turnstile))
            logger.notice("SIGHUP: \(boardPath) read again: relock_timeout \(board.turnstile.relockTimeout.secondsText) s, repair_period \(board.turnstile.repairPeriod.secondsText) s, jam_timeout \(board.turnstile.jamTimeout.secondsText) s, alarm_pulse \(board.turnstile.alarmPulse.secondsText) s, fail_mode \(board.turnstile.failMode.rawValue)")
            return
        }
        logger.warning("SIGHUP: \(boardPath) refused: \(difference) changed, which needs a restart (systemctl restart turnstiled); the running configuration stays")
    }
}

extension BoardFile {
    /// What differs between two boards beyond their `[turnstile]` timings, if anything.
    func wiringDifference(from other: BoardFile) -> String? {
        if chip != other.chip { return "the chip" }
        if backend != other.backend { return "the backend" }
        if consumer != other.consumer { return "the consumer" }
        if inputs != other.inputs { return "the [inputs] lines" }
        if outputs != other.outputs { return "the [outputs] lines" }
        if sim != other.sim { return "the [sim] section" }
        return nil
    }
}
