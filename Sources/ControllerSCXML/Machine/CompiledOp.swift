import ControllerFSM

/// Executable content with its expressions prepared by the datamodel and its events resolved
/// (by event number, whatever space the machine's events are in): what actions run.
indirect enum CompiledOp<Model: SCXMLDatamodel>: Sendable {
    case raise(Int)
    case sendExternal(Int, delayNanoseconds: Int64, id: String?)
    /// A `<send>` whose target or type this runtime does not take: an execution error.
    case sendInvalid(reason: String)
    /// A `<send>` to a target no session answers: `error.communication` (the event given),
    /// raised on the internal queue; the block goes on.
    case sendUndeliverable(Int)
    case cancel(id: String)
    /// A delayed `<send>` of a chart controller: its id's timer slot, (re)started for the delay
    /// the context holds for that slot (`SCXMLContext/timerDelays`), sending the event.
    case startTimer(slot: Int, event: Int)
    /// `<cancel>` of a chart controller: its id's timer slot stopped.
    case cancelTimer(slot: Int)
    case assign(Model.Location, Model.ValueExpression)
    case branches([CompiledBranch<Model>])
    case log(label: String?, Model.ValueExpression?)
}

struct CompiledBranch<Model: SCXMLDatamodel>: Sendable {
    /// nil for `<else>`.
    var condition: Model.Condition?
    var content: [CompiledOp<Model>]
}

/// Runs compiled content inside an action.
enum OpInterpreter<Model: SCXMLDatamodel, Space: DocumentSymbolSpace> {
    typealias Context = SCXMLContext<Model>
    typealias MachineEffects = Effects<ChartState<Space>, ChartEvent<Space>>

    /// Runs `ops` in order. An execution error stops the block (the ops after it do not run)
    /// and raises `errorEvent` on the internal queue, as SCXML says.
    static func run(_ ops: [CompiledOp<Model>], errorEvent: Int, _ context: inout Context, _ effects: inout MachineEffects) {
        do throws(DatamodelExecutionError) {
            try execute(ops, &context, &effects)
        } catch {
            context.lastExecutionError = error.reason
            send(errorEvent, &context, &effects)
        }
    }

    private static func execute(_ ops: [CompiledOp<Model>], _ context: inout Context, _ effects: inout MachineEffects) throws(DatamodelExecutionError) {
        for op in ops {
            switch op {
            case .raise(let event):
                send(event, &context, &effects)
            case .sendExternal(let event, let delay, let id):
                context.outbox.append(.send(event: event, delayNanoseconds: delay, id: id))
            case .startTimer(let slot, let event):
                effects.startTimer(ChartTimer.slot(slot), afterNanoseconds: context.timerDelays[slot], sending: ChartEvent(number: event))
            case .cancelTimer(let slot):
                effects.cancelTimer(ChartTimer.slot(slot))
            case .sendInvalid(let reason):
                throw DatamodelExecutionError(reason)
            case .sendUndeliverable(let error):
                send(error, &context, &effects)
            case .cancel(let id):
                context.outbox.append(.cancel(id: id))
            case .assign(let location, let expression):
                let value = try context.model.evaluateValue(expression, in: context.configuration)
                try context.model.assign(value, to: location)
            case .branches(let branches):
                for branch in branches {
                    if let condition = branch.condition {
                        guard try context.model.evaluateCondition(condition, in: context.configuration) else { continue }
                    }
                    try execute(branch.content, &context, &effects)
                    break
                }
            case .log(let label, let expression):
                var value: String?
                if let expression { value = context.model.describe(try context.model.evaluateValue(expression, in: context.configuration)) }
                context.append(log: [label, value].compactMap { $0 }.joined(separator: ": "))
            }
        }
    }

    /// The internal queue; a full one is remembered, so the run reports it instead of running on
    /// without the event.
    private static func send(_ event: Int, _ context: inout Context, _ effects: inout MachineEffects) {
        if !effects.send(ChartEvent(number: event)) { context.internalQueueOverflowed = true }
    }
}

extension CompiledOp {
    /// The events `ops` raise on the internal queue every time they run, in order, when that is
    /// certain: content of `<raise>`, `<send>` to the external queue, `<cancel>` and `<log>`
    /// without an expression, none of which can fail (a failure stops the block and raises
    /// `error.execution` instead). nil for content that may fail or branch: `compile()`'s search
    /// for certain loops of sent events (`sends:`) then does not look into it.
    static func certainRaises(_ ops: [CompiledOp<Model>]) -> [Int]? {
        var raised: [Int] = []
        for op in ops {
            switch op {
            case .raise(let event): raised.append(event)
            case .sendExternal, .cancel, .startTimer, .cancelTimer, .log(_, nil): continue
            case .assign, .branches, .log, .sendInvalid: return nil
            case .sendUndeliverable(let error): raised.append(error)
            }
        }
        return raised
    }
}

/// The timer slots of a chart controller: one per id of its delayed sends, in document order
/// (`ChartBuildOptions/delayedSendsAsTimers`).
enum ChartTimer: Int, MachineTimer {
    case slot0, slot1, slot2, slot3, slot4, slot5, slot6, slot7

    static func slot(_ number: Int) -> ChartTimer { ChartTimer(rawValue: number)! }

    var name: String { "timer \(rawValue)" }
}
