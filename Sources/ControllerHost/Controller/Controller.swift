import ControllerFSM

/// An application on a GPIO chip: edges in, debounced, turned into events as the application's
/// input declarations say, dispatched to its machine, outputs written as its output
/// declarations say.
///
/// Generic over the application and the chip so the same code runs every controller on
/// libgpiod and on the simulator. All but the chip is its ``ControllerCore``, whose event path
/// is compiled for the application; this class requests the lines from the chip, and again
/// after the chip came back.
///
/// Single-threaded: one event loop calls `start`, then `process(now:)` whenever an input is
/// readable or `nextDeadline` passes, and `stop` at the end.
public final class Controller<App: ControllerApplication, Chip: GPIOChip>: ControllerCore<App> {
    /// Requests the board's lines from `chip`: inputs with both edges, outputs at their declared
    /// safe initial levels.
    /// - Parameters:
    ///   - chip: the chip the board's lines are on (libgpiod's, or the simulated one).
    ///   - board: which line plays each role, and the application's settings.
    ///   - trace: receives every dispatch, for another thread to report.
    ///   - outputLog: receives every output write, for another thread to report.
    ///   - ledger: receives the state, gauges and counters after every step, for another
    ///     thread to make durable.
    ///   - inputLog: receives every debounced edge and command taken, for another thread to
    ///     record as a scenario.
    ///   - completionClock: stamps each logged write with when it completed, on the timeline
    ///     of the edges' timestamps (the kernel's monotonic clock), so the reporter can tell the
    ///     edge-to-output latency.
    public init(
        chip: Chip, board: Board<App>, trace: Trace? = nil, outputLog: OutputLog? = nil,
        ledger: Ledger? = nil, inputLog: InputLog? = nil, completionClock: (any MachineClock)? = nil
    ) throws(GPIOError) {
        var roles: [Int] = []
        var inputSettings: [InputLineSettings] = []
        for (index, line) in board.inputs.lines.enumerated() {
            guard let line else { continue }
            roles.append(index)
            inputSettings.append(InputLineSettings(
                offset: try Self.offset(of: line.line, on: chip),
                activeLow: line.activeLow, bias: line.bias, debounce: line.debounce))
        }
        var slots = [Int](repeating: -1, count: App.outputs.count)
        var outputSettings: [OutputLineSettings] = []
        for (index, line) in board.outputs.lines.enumerated() {
            guard let line else { continue }
            slots[index] = outputSettings.count
            outputSettings.append(OutputLineSettings(
                offset: try Self.offset(of: line.line, on: chip),
                activeLow: line.activeLow, initialValue: App.outputs[index].initialLevel))
        }
        // Outputs first: from this moment every output is held at its safe level, before any
        // input can be taken.
        let consumer = board.consumer
        let outputs = try chip.requestOutputs(outputSettings, consumer: consumer)
        let inputs: Chip.Inputs
        do {
            inputs = try chip.requestInputs(inputSettings, consumer: consumer)
        } catch {
            outputs.release()
            throw error
        }
        super.init(
            board: board, trace: trace, outputLog: outputLog, ledger: ledger, inputLog: inputLog,
            completionClock: completionClock, inputRoles: roles, inputSettings: inputSettings,
            outputSlots: slots, outputSettings: outputSettings, edgeReader: inputs, lineWriter: outputs)
    }

    /// Requests the board's lines again, from `chip`, after the chip the controller had went
    /// away (an expander unplugged and plugged back, a driver rebound). The machine keeps its
    /// state, context and counters. Outputs are requested at the levels the machine wants now;
    /// each input is read, and one found at a level other than the last one taken becomes an
    /// edge at `now`: what changed while the chip was gone is late, never lost.
    package func reattach(to chip: Chip, at now: MachineInstant) throws(GPIOError) {
        defer { publishSettled() }
        var levels = outputSettings
        for index in App.outputs.indices {
            guard let slot = outputs.slot(of: index) else { continue }
            levels[slot].initialValue = holdsFailSafe ? outputs.failSafeLevel(index, settings: settings) : wantedLevel(index)
        }
        let newOutputs = try chip.requestOutputs(levels, consumer: board.consumer)
        let newInputs: Chip.Inputs
        do {
            newInputs = try chip.requestInputs(inputSettings, consumer: board.consumer)
        } catch {
            newOutputs.release()
            throw error
        }
        releaseLines()
        edgeReader = newInputs
        lineWriter = newOutputs
        outputs.reattached(levels: levels.map(\.initialValue))
        chipLost = nil
        inputs.reattach(settled: newInputs.edgesAreDebounced)
        for line in inputs.roles.indices {
            let active = try newInputs.readValue(at: line)
            guard inputs.retake(line: line, active: active) else { continue }
            handle(EdgeEvent(lineIndex: line, kind: EdgeKind(becameActive: active), timestamp: now, sequence: 0))
        }
        settle(at: now.nanoseconds)
    }

    /// The offset of the line a board file names, by name or number. A name the chip lacks is
    /// refused in the daemon's words (its `lines` command lists the chip's names).
    package static func offset(of selector: LineSelector, on chip: Chip) throws(GPIOError) -> GPIOLineOffset {
        switch selector {
        case .name(let name):
            do { return try chip.offset(ofLineNamed: name) } catch { throw error.naming(program: App.daemonName) }
        case .offset(let offset):
            return GPIOLineOffset(offset)
        }
    }
}
