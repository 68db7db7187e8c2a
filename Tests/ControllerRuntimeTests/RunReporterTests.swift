import ControllerDaemon
import ControllerFSM
import ControllerFSMSim
import ControllerHost
import ControllerSimulation
import ControllerTestSupport
import Foundation
import Testing
import Turnstile
import TurnstileTestSupport
@testable import ControllerRuntime

/// The reporting thread below the assembled daemon: a controller on a simulated chip writes its
/// rings, the reporter drains them. What it owes: every step told in order, with its time from
/// the run's start; status' last transitions and (with no store) its counts; `ctl events
/// --follow` each transition; lost edges and a report that fell behind said, never silently.
@Suite struct RunReporterTests {
    typealias App = TurnstileApplication
    let log = CapturedLog()
    let parts: DaemonParts<App>
    let controller: Controller<App, SimChip>
    let trace: Controller<App, SimChip>.Trace
    let outputLog: Controller<App, SimChip>.OutputLog
    let ledger = Controller<App, SimChip>.Ledger(capacity: 64)
    let watermark = ReportWatermark()
    let printer = SimulationRecorder()
    let lostEdges = Guarded(0)
    /// The run's time 0 on the controller's timeline.
    let origin = MachineInstant.zero + .seconds(100)

    init() throws {
        try self.init(traceCapacity: 64)
    }

    init(traceCapacity: Int) throws {
        trace = Controller<App, SimChip>.Trace(capacity: traceCapacity)
        outputLog = Controller<App, SimChip>.OutputLog(capacity: traceCapacity)
        let board = try simBoard()
        let simulated = SimulatedBoard(board: board, clock: ManualClock(start: origin), seed: 1) { _ in }
        simulated.chip.advance(to: origin)
        parts = try DaemonParts<App>(program: "turnstiled", board: "test", chip: "sim", logger: log.logger)
        controller = try Controller<App, SimChip>(
            chip: simulated.chip, board: board, trace: trace, outputLog: outputLog, ledger: ledger, completionClock: ManualClock(start: origin))
        controller.reportWatermark = watermark
        try controller.start(at: origin)
    }

    func reporter() -> RunReporter<App> {
        RunReporter<App>(
            trace: trace, outputLog: outputLog, watermark: watermark, inputLog: nil, ledger: ledger, status: parts.status,
            lostEdges: { [lostEdges] in lostEdges.withLock { $0 } }, origin: origin, printer: printer, warnings: parts.warnings,
            recorder: nil, notifier: parts.notifier, onWriteLatency: nil)
    }

    func at(_ seconds: Int64) -> MachineInstant { origin + .seconds(seconds) }

    @Test func everyStepIsToldInOrderFromTheRunsStart() throws {
        let reporter = reporter()
        let followed = Guarded<[TransitionSummary]>([])
        reporter.publishTransition = { summary in followed.withLock { $0.append(summary) } }
        reporter.start()
        _ = try controller.send(.coin, at: at(1))
        _ = try controller.send(.push, at: at(2))
        reporter.stopAndWait(end: at(3))

        let transitions = printer.records.filter { $0.outcome == .transitioned }
        #expect(transitions.map { "\($0.from.name) -\($0.event.name)-> \($0.to.name)" } == ["locked -coin-> unlocked", "unlocked -push-> locked"])
        #expect(transitions.map(\.time) == [.zero + .seconds(1), .zero + .seconds(2)], "times from the run's start, not the controller's clock")
        #expect(printer.outputs.contains { $0.role == .lock && $0.value == false && $0.time == .seconds(1) }, "\(printer.outputs)")
        let status = parts.status.snapshot()
        #expect(status.lastTransitions.map(\.event) == ["coin", "push"])
        #expect(followed.withLock { $0 } == status.lastTransitions)
        #expect(status.counters["coins"] == 1 && status.counters["passages"] == 1, "with no store, status counts from the ledger")
        #expect(status.traceLosses == 0)
    }

    @Test("status' last transitions and ctl events name every row taken, internal ones marked")
    func internalRowsAreTold() throws {
        let reporter = reporter()
        let followed = Guarded<[TransitionSummary]>([])
        reporter.publishTransition = { summary in followed.withLock { $0.append(summary) } }
        reporter.start()
        _ = try controller.send(.coin, at: at(1))
        _ = try controller.send(.coin, at: at(2))   // a second coin while unlocked: credit, no move
        _ = try controller.send(.push, at: at(3))   // one credit used, one left: still unlocked
        _ = try controller.send(.push, at: at(4))
        reporter.stopAndWait(end: at(5))

        let status = parts.status.snapshot()
        #expect(status.lastTransitions.map { "\($0.from) -\($0.event)-> \($0.to)\($0.isInternal == true ? " internal" : "")" } == [
            "locked -coin-> unlocked", "unlocked -coin-> unlocked internal", "unlocked -push-> unlocked internal", "unlocked -push-> locked",
        ])
        #expect(followed.withLock { $0 } == status.lastTransitions)
        let internalJSON = String(decoding: try JSONEncoder().encode(status.lastTransitions[1]), as: UTF8.self)
        let movingJSON = String(decoding: try JSONEncoder().encode(status.lastTransitions[0]), as: UTF8.self)
        #expect(internalJSON.contains("\"internal\":true") && !movingJSON.contains("internal"), "\(internalJSON) \(movingJSON)")
    }

    @Test func lostEdgesAreSaidInTheLog() throws {
        let reporter = reporter()
        reporter.start()
        lostEdges.withLock { $0 = 3 }
        _ = try controller.send(.coin, at: at(1))
        reporter.stopAndWait(end: at(2))
        #expect(log.lines.contains { $0.hasPrefix("3 input edge(s) were lost before they could be read (3 in all)") }, "\(log.lines)")
    }

    @Test func aReportThatFellBehindIsSaidAndCounted() throws {
        let small = try RunReporterTests(traceCapacity: 4)
        for second in 1...6 {
            _ = try small.controller.send(.coin, at: small.at(Int64(2 * second - 1)))
            _ = try small.controller.send(.push, at: small.at(Int64(2 * second)))
        }
        let reporter = small.reporter()
        reporter.start()
        reporter.stopAndWait(end: small.at(20))
        #expect(small.log.lines.contains { $0.hasPrefix("the report fell behind:") }, "\(small.log.lines)")
        #expect(small.parts.status.snapshot().traceLosses > 0)
        #expect(small.printer.records.count < 12, "what was lost is not told as if it had been kept")
    }
}
