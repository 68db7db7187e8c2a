import ControllerDaemon
import ControllerFSM
import Logging
import ControllerHost
import ControllerSimulation

/// Under systemd (`$JOURNAL_STREAM` set): one swift-log line per transition and per output
/// change, so the journal holds the story with its own timestamps and priorities; the summary
/// at exit is one line too. Fed by the reporting thread, never the event loop.
final class JournalReporter<App: ControllerApplication>: SimulationReporter {
    private let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    func output(_ name: RoleName, value: Bool, at time: MachineInstant) {
        logger.info("\(name.rawValue) = \(value ? 1 : 0)")
    }

    func dispatched(_ record: DispatchRecord<App.State, App.Event>) {
        switch record.outcome {
        case .ignored:
            if let (role, active) = App.keptLevel(sentBy: record.event) {
                logger.info("\(record.from.name): \(record.event.name) (\(role.rawValue) \(active ? "active" : "inactive"), level kept)")
            } else {
                logger.notice("ignored \(record.event.name) in \(record.from.name)")
            }
        case .transitioned:
            logger.info(
                "\(record.from.name) --\(record.event.name)--> \(record.to.name)\(App.table.rowOf(record).map { " (row of \($0.name))" } ?? "")",
                metadata: JournalRecordKind.transition.metadata(state: record.to.name, event: record.event.name))
        case .handledInternally:
            logger.info(
                "\(record.from.name): \(record.event.name)\(App.table.rowOf(record).map { " (row of \($0.name))" } ?? "")",
                metadata: JournalRecordKind.transition.metadata(state: record.to.name, event: record.event.name))
        }
    }

    func expectationFailed(_ failure: ExpectationFailure) {}

    func finished(_ summary: SimulationSummary<App>) {
        let counters = summary.namedCounters.map { "\($0.name) \($0.value)" }.joined(separator: ", ")
        let gauges = summary.namedGauges.map { ", \($0.name) \($0.value)" }.joined()
        logger.info("state \(summary.statesText)\(gauges); this run: \(counters)")
    }
}
