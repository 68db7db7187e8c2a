import ControllerFSM
import ControllerHost
import ControllerSCXML

/// The runtime's declarations of a chart controller, made from its binding: each name looked up
/// and each condition read by the chart's datamodel once, at load; what runs after reads slots
/// and evaluates prepared expressions.
struct Declaration<Space: ChartSpace> {
    typealias App = ChartController<Space>
    typealias Model = IntegerDatamodel

    var inputs: [InputDeclaration<App>] = []
    var outputs: [OutputDeclaration<App>] = []
    var counters: [CounterDeclaration<App>] = []
    var commands: [DirectCommand<App>] = []
    var invariants: [Invariant<App>] = []
    let timers: [ChartTimers.DelayedSend]
    let chartFile: String

    init(binding: ChartBinding, check: BindingCheck, machine: ChartMachine<Model, Space>, timers: [ChartTimers.DelayedSend]) throws(ChartLoadError) {
        self.timers = timers
        chartFile = machine.document.file
        let model = machine.context.model
        let symbols = machine.symbols
        func event(_ name: String) -> App.Event {
            // Every bound event is in the machine's universe: the loader gave it as external.
            App.Event(rawValue: symbols.eventNumber(named: name)!)!
        }
        func refusal(_ keyPath: String, _ reason: String, hint: String? = nil) -> ChartLoadError {
            .binding(BoardFileError(file: binding.file, location: .keyPath(keyPath), reason: reason, hint: hint))
        }
        func condition(_ text: String, at keyPath: String) throws(ChartLoadError) -> IntegerExpression {
            do { return try model.condition(text) } catch {
                throw refusal(keyPath, "\"\(text.shown)\": \(error.reason)",
                              hint: "a condition of the chart's integer datamodel: its <data> ids, integers, ==, !=, <, <=, >, >=, &&, ||, !, In('STATE')")
            }
        }
        func data(_ id: String, at keyPath: String) throws(ChartLoadError) -> Int {
            do { return try model.location(id) } catch {
                let declared = machine.document.data.map(\.id)
                throw refusal(keyPath, "\(error.reason) in \(machine.document.file)",
                              hint: declared.isEmpty ? "the chart declares no <data>" : "its <data>: \(declared.joined(separator: ", "))")
            }
        }

        for input in binding.inputs {
            let role = RoleName(input.role)
            switch input.kind {
            case .pulse(let name):
                inputs.append(.pulse(role, sends: event(name), required: input.required, simulatedPulse: input.simulatedPulse, summary: input.summary))
            case .level(let on, let off):
                let keeping: (@Sendable (inout App.Context, Bool) -> Void)?
                if let id = input.data {
                    let slot = try data(id, at: input.keyPath + ".data")
                    keeping = { context, level in try? context.model.assign(level ? 1 : 0, to: slot) }
                } else {
                    keeping = nil
                }
                inputs.append(.level(role, on: event(on), off: event(off), required: input.required, summary: input.summary, keeping: keeping))
            case .condition(let on, let off):
                inputs.append(.condition(role, on: event(on), off: event(off), required: input.required, summary: input.summary))
            }
        }
        for output in binding.outputs {
            let level = try condition(output.when, at: output.keyPath + ".when")
            var precondition: OutputPrecondition<App>?
            if let text = output.requires {
                let holds = try condition(text, at: output.keyPath + ".requires")
                precondition = OutputPrecondition(text) { _, context in Self.holds(holds, in: context) }
            }
            outputs.append(OutputDeclaration(
                RoleName(output.role), required: output.required, initial: output.initial, summary: output.summary,
                requires: precondition) { _, context in Self.holds(level, in: context) })
        }
        for counter in binding.counters {
            let slot = try data(counter.name, at: counter.keyPath)
            counters.append(CounterDeclaration(counter.name, summary: counter.text) { context in context.model.values[slot] ?? 0 })
        }
        for command in binding.commands {
            commands.append(DirectCommand(event(command.name), summary: command.text))
        }
        for invariant in binding.invariants {
            let holds = try condition(invariant.text, at: invariant.keyPath)
            invariants.append(Invariant(invariant.name) { _, context in Self.holds(holds, in: context) })
        }
    }

    /// A binding's condition now; one that cannot be evaluated (a datum read before it has a
    /// value) is false: an output stays off, an invariant is reported.
    static func holds(_ condition: IntegerExpression, in context: App.Context) -> Bool {
        (try? context.model.evaluateCondition(condition, in: context.configuration)) ?? false
    }

    /// The board-file section: each timer's delay by its id, the chart's delay the default.
    func settings(name: String) -> SettingsDeclaration<App> {
        let keys: [SettingKey<App>] = timers.enumerated().map { slot, timer in
            .duration(timer.id, \ChartSettings.timers[slot],
                      summary: "the delay of the chart's timer \(timer.id) (<send id=\"\(timer.id)\"> at \(chartFile):\(timer.line), sending \(timer.event))")
        }
        let defaults = ChartSettings(timers: timers.map { .nanoseconds($0.delayNanoseconds) })
        return SettingsDeclaration(section: name, defaults: defaults, keys: keys)
    }
}
