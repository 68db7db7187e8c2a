import ControllerDaemon
import ControllerFSM
import ControllerSimulation
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import ControllerHost

/// The start-up steps of `run` that belong to no one service: the parts every service shares,
/// where the report goes, the recording and the control socket. Each failure is said on standard
/// error and exits with its status before the group runs.
extension Daemon {
    /// A wake-up the inbox cannot make (out of descriptors) exits 3, as a GPIO error does.
    func makeParts(board: Board<App>, chipText: String, logger: Logger) throws -> DaemonParts<App> {
        do {
            return try DaemonParts<App>(program: App.daemonName, board: board.name, chip: chipText, logger: logger)
        } catch {
            throw ControllerExit.gpioError.said("\(error)", cause: error)
        }
    }

    /// JSON records with `--json`; under systemd (`$JOURNAL_STREAM`) a log line per step; the
    /// readable trace otherwise.
    func makePrinter(board: Board<App>, chipText: String, journal: Bool, logger: Logger) -> any SimulationReporter<App> {
        return options.json
            ? JSONReporter<App>()
            : journal ? JournalReporter<App>(logger: logger) as any SimulationReporter<App>
            : TextReporter<App>(colors: Terminal.wantsColor, command: "run", header: "board \(board.name) (\(options.board)), chip \(chipText)")
    }

    /// `--record`'s recording from `origin`; nil without it. A recording that cannot be made
    /// runs `abandon` and exits 2.
    func openRecording(board: Board<App>, origin: MachineInstant, abandon: () -> Void) throws -> FlightRecorder<App>? {
        guard let record = options.record else { return nil }
        do {
            return try FlightRecorder<App>(path: record, board: board, boardPath: options.board, origin: origin)
        } catch {
            let stop = ControllerExit.badInput.said("\(error)", cause: error)
            abandon()
            throw stop
        }
    }

    /// `--control-socket`'s server, answering with `handler` from now on; nil without it. A
    /// socket that cannot be made runs `abandon` and exits 2.
    func openControlSocket(handler: ControlHandler<App>, logger: Logger, abandon: () -> Void) throws -> ControlServer? {
        guard let controlSocket = options.controlSocket else { return nil }
        do {
            let server = try ControlServer(path: controlSocket, group: options.controlGroup, onDrop: { logger.warning("\($0)") }) { request, peer in
                handler.answer(request, from: peer)
            }
            logger.info("control socket \(controlSocket) (group \(options.controlGroup ?? "of the daemon"), mode 0660)")
            return server
        } catch {
            let stop = ControllerExit.badInput.said("\(error)", cause: error)
            abandon()
            throw stop
        }
    }
}
