import ControllerFSM
import Foundation
import Testing
import ControllerHost
import Turnstile
import ControllerSimulation

/// A `SimulationReporter` that keeps everything it is told, in order, and checks the lock
/// invariant as the run goes: after every dispatch record (taken or ignored), once the outputs
/// that dispatch wrote have arrived, the `lock` output is released exactly when the state is
/// `unlocked` or `emergency`.
///
/// The settling rule: the controller writes outputs after each dispatch, and the trace is drained
/// just before each write is reported, so when the *next* record (or the summary) arrives, every
/// output written for the previous one has been reported.
package final class SimulationRecorder: SimulationReporter {
    package typealias Record = DispatchRecord<TurnstileState, TurnstileEvent>

    package struct OutputChange: Equatable, CustomStringConvertible {
        package var role: OutputRole
        package var value: Bool
        package var time: Duration

        package init(role: OutputRole, value: Bool, time: Duration) {
            self.role = role
            self.value = value
            self.time = time
        }

        package var description: String { "\(role.rawValue)=\(value ? 1 : 0)@\(time.secondsText)" }
    }

    /// Everything, in arrival order, as one comparable log line each.
    package init() {}

    package private(set) var log: [String] = []
    package private(set) var outputs: [OutputChange] = []
    package private(set) var records: [Record] = []
    package private(set) var failures: [ExpectationFailure] = []
    package private(set) var summary: SimulationSummary<TurnstileApplication>?
    /// Every time the lock output disagreed with the state a record left the machine in.
    package private(set) var lockViolations: [String] = []
    /// The level of each output as reported so far.
    package private(set) var levels: [OutputRole: Bool] = [:]

    /// Called at every output change and at the end, when the controller is between dispatches
    /// and its state, credit and counters can be read; returns what is wrong, if anything.
    package var probe: (() -> String?)?
    /// What `probe` found.
    package private(set) var probeViolations: [String] = []

    private var unsettled: Record?

    package func output(_ name: RoleName, value: Bool, at time: MachineInstant) {
        let role = OutputRole(rawValue: name.rawValue)!
        let change = OutputChange(role: role, value: value, time: time.duration(since: .zero))
        outputs.append(change)
        levels[role] = value
        log.append("output \(change)")
        if let problem = probe?() { probeViolations.append("at \(change.time.secondsText) s: \(problem)") }
    }

    package func dispatched(_ record: Record) {
        settle()
        records.append(record)
        unsettled = record
        log.append("\(record.outcome) \(record.from.name) \(record.event.name) -> \(record.to.name) @\(record.time.nanoseconds)")
    }

    package func expectationFailed(_ failure: ExpectationFailure) {
        failures.append(failure)
        log.append("failed \(failure)")
    }

    package func finished(_ summary: SimulationSummary<TurnstileApplication>) {
        settle()
        if let problem = probe?() { probeViolations.append("at the end: \(problem)") }
        self.summary = summary
        log.append("summary \(summary)")
    }

    private func settle() {
        guard let record = unsettled else { return }
        unsettled = nil
        let released = record.to == .unlocked || record.to == .emergency
        if levels[.lock] != !released {
            lockViolations.append(
                "after \(record.event.name) at \(record.time.duration(since: .zero).secondsText) s the state is \(record.to.name) "
                    + "but lock is \(levels[.lock].map { $0 ? "1" : "0" } ?? "unset")")
        }
    }

    // MARK: Queries

    /// Records of events the machine took (transitions, internal ones included).
    package var taken: [Record] { records.filter { $0.outcome.wasTaken } }
    package var ignored: [Record] { records.filter { $0.outcome == .ignored } }

    /// Taken records of `event`, optionally only from `state`.
    package func taken(_ event: TurnstileEvent, from state: TurnstileState? = nil) -> [Record] {
        taken.filter { $0.event == event && (state == nil || $0.from == state) }
    }

    /// The changes of `role` after its initial value (the first report of every output).
    package func changes(of role: OutputRole) -> [OutputChange] {
        Array(outputs.filter { $0.role == role }.dropFirst())
    }

    /// The states visited, in order, starting with `locked`.
    package var statePath: [TurnstileState] {
        records.filter { $0.outcome == .transitioned }.reduce(into: [.locked]) { $0.append($1.to) }
    }

    package var counters: TurnstileCounters { summary?.counters ?? TurnstileCounters() }
}

extension DispatchRecord {
    /// Time since the start of the run.
    package var at: Duration { time.duration(since: .zero) }
}

/// The built-in board with `[sim]` and `[turnstile]` keys replaced, e.g.
/// `board(replacing: ["bounce_edges = 4": "bounce_edges = 8"])`. Each key must be found, so a
/// change to the built-in board cannot silently make a test use the defaults.
package func simBoard(replacing replacements: KeyValuePairs<String, String> = [:],
              sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> BoardFile {
    var text = BoardFile.defaultSimText
    for (old, new) in replacements {
        try #require(text.contains(old), "the built-in board has no \"\(old)\" to replace", sourceLocation: sourceLocation)
        text = text.replacingOccurrences(of: old, with: new)
    }
    return try BoardFile.parse(text, file: "test-board.toml")
}

/// The file name scenario texts are parsed under; failure messages name it.
package let scenarioFile = "run.scenario"

/// Parses `text` for `board` and plays it on a fresh simulation; returns what the reporter got.
package func play(_ text: String, board: BoardFile = .defaultSim, seed: UInt64 = 1, breakProbability: Double = 0) throws
    -> SimulationRecorder
{
    let scenario = try Scenario<TurnstileApplication>.parse(text, file: scenarioFile, vocabulary: TurnstileSimulation.vocabulary(for: board))
    let recorder = SimulationRecorder()
    let simulation = try TurnstileSimulation(board: board, seed: seed, breakProbability: breakProbability, reporter: recorder)
    let summary = try simulation.run(scenario)
    #expect(recorder.summary == summary, "the summary run() returns is the one the reporter got")
    #expect(recorder.lockViolations.isEmpty, "lock output disagreed with the state: \(recorder.lockViolations)")
    return recorder
}

/// `play`, also requiring that every `expect` in the scenario held.
@discardableResult
package func playExpectingSuccess(_ text: String, board: BoardFile = .defaultSim, seed: UInt64 = 1, breakProbability: Double = 0,
                          sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> SimulationRecorder {
    let recorder = try play(text, board: board, seed: seed, breakProbability: breakProbability)
    #expect(recorder.failures.isEmpty, "expectations failed: \(recorder.failures.map(\.description))",
            sourceLocation: sourceLocation)
    return recorder
}

/// When an input pulse starting at `start` is taken with the built-in board: once the line has
/// been stable for the 10 ms debounce period after the last bounce, which falls within the 3 ms
/// bounce window.
package func acceptance(ofPulseAt start: Duration) -> ClosedRange<Duration> {
    (start + .milliseconds(10))...(start + .milliseconds(13))
}
