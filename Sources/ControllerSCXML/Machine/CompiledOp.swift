import ControllerFSM

/// Executable content with its expressions prepared by the datamodel and its events resolved:
/// what actions run.
indirect enum CompiledOp<Model: SCXMLDatamodel>: Sendable {
    case raise(DocumentEvent)
    case sendExternal(DocumentEvent, delayNanoseconds: Int64, id: String?)
    /// A `<send>` whose target or type this runtime does not take: an execution error.
    case sendInvalid(reason: String)
    /// A `<send>` to a target no session answers: `error.communication` (the event given),
    /// raised on the internal queue; the block goes on.
    case sendUndeliverable(DocumentEvent)
    case cancel(id: String)
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
enum OpInterpreter<Model: SCXMLDatamodel> {
    typealias Context = SCXMLContext<Model>
    typealias MachineEffects = Effects<DocumentState, DocumentEvent>

    /// Runs `ops` in order. An execution error stops the block (the ops after it do not run)
    /// and raises `errorEvent` on the internal queue, as SCXML says.
    static func run(_ ops: [CompiledOp<Model>], errorEvent: DocumentEvent, _ context: inout Context, _ effects: inout MachineEffects) {
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
    private static func send(_ event: DocumentEvent, _ context: inout Context, _ effects: inout MachineEffects) {
        if !effects.send(event) { context.internalQueueOverflowed = true }
    }
}

extension CompiledOp {
    /// The events `ops` raise on the internal queue every time they run, in order, when that is
    /// certain: content of `<raise>`, `<send>` to the external queue, `<cancel>` and `<log>`
    /// without an expression, none of which can fail (a failure stops the block and raises
    /// `error.execution` instead). nil for content that may fail or branch: `compile()`'s search
    /// for certain loops of sent events (`sends:`) then does not look into it.
    static func certainRaises(_ ops: [CompiledOp<Model>]) -> [DocumentEvent]? {
        var raised: [DocumentEvent] = []
        for op in ops {
            switch op {
            case .raise(let event): raised.append(event)
            case .sendExternal, .cancel, .log(_, nil): continue
            case .assign, .branches, .log, .sendInvalid: return nil
            case .sendUndeliverable(let error): raised.append(error)
            }
        }
        return raised
    }
}
