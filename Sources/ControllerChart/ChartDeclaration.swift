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
    var settingSlots: [Int] = []
    var counterSlots: [Int] = []
    var stateCounts: [StateCount<App>] = []
    var homeAssistant = HomeAssistantHints<App>()
    /// The board's integer settings: their keys and defaults (each `<data>`'s value at the start).
    var integerKeys: [SettingKey<App>] = []
    var integerDefaults: [Int] = []
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
            counterSlots.append(slot)
            counters.append(CounterDeclaration(counter.name, summary: counter.text) { context in context.model.values[slot] ?? 0 })
        }
        for command in binding.commands {
            commands.append(DirectCommand(event(command.name), summary: command.text))
        }
        let assigned = machine.document.assignments
        for (index, setting) in binding.settings.enumerated() {
            let slot = try data(setting.id, at: setting.keyPath)
            if let write = assigned.first(where: { String($0.location.filter { !$0.isWhitespace }) == setting.id }) {
                throw refusal(setting.keyPath, "\(machine.document.file):\(write.line) assigns \(setting.id), a setting",
                              hint: "a setting is the board's, read by the chart and never assigned by it; keep what changes in a <data> of its own")
            }
            guard let initial = model.values[slot] else {
                throw refusal(setting.keyPath, "<data id=\"\(setting.id)\"> has no value at the start", hint: "give it one: expr=\"\(setting.range.lowerBound)\"")
            }
            guard setting.range.contains(initial) else {
                throw refusal(setting.keyPath, "the chart's value of \(setting.id), \(initial), is outside \(setting.range.lowerBound)...\(setting.range.upperBound)",
                              hint: "the chart's expr is the default: give a value within the floor and the ceiling")
            }
            settingSlots.append(slot)
            integerDefaults.append(initial)
            integerKeys.append(.integer(setting.id, \ChartSettings.integers[index], in: setting.range,
                                        summary: setting.summary.isEmpty ? "the chart's <data> \(setting.id), from \(setting.range.lowerBound) to \(setting.range.upperBound)" : setting.summary))
        }
        func state(_ id: String, at keyPath: String) throws(ChartLoadError) -> App.State {
            guard let number = symbols.stateNumber(id: id), number < machine.document.states.count else {
                let ids = machine.document.states.map(\.id)
                let hint = Suggestion.didYouMean(id, in: ids).map { "\($0) " } ?? ""
                throw refusal(keyPath, "\(machine.document.file) has no state \"\(id.shown)\"", hint: hint + "its states: \(ids.joined(separator: ", "))")
            }
            return App.State(rawValue: number)!
        }
        for count in binding.stateCounts {
            let counted = try state(count.state, at: count.keyPath + (count.entering ? ".entering" : ".leaving"))
            stateCounts.append(count.entering ? .entering(counted, counts: count.kind) : .leaving(counted, counts: count.kind))
        }
        let assistant = binding.homeAssistant
        var faults: [App.State] = []
        for id in assistant.faultStates { faults.append(try state(id, at: assistant.keyPath + ".fault_states")) }
        var cover: HomeAssistantHints<App>.Cover?
        if let given = assistant.cover {
            let path = assistant.keyPath + ".cover"
            func states(_ ids: [String], _ key: String) throws(ChartLoadError) -> [App.State] {
                var result: [App.State] = []
                for id in ids { result.append(try state(id, at: "\(path).\(key)")) }
                return result
            }
            for (name, key) in [(given.open, "open"), (given.close, "close"), (given.stop, "stop")] {
                guard let name else { continue }
                guard binding.commands.contains(where: { $0.name == name }) else {
                    throw refusal("\(path).\(key)", "\"\(name.shown)\" is not one of the binding's [commands]",
                                  hint: "Home Assistant sends it as a command: add it under [commands]")
                }
            }
            cover = HomeAssistantHints<App>.Cover(
                deviceClass: given.deviceClass, open: event(given.open), close: given.close.map(event), stop: given.stop.map(event),
                openStates: try states(given.openStates, "open_states"), opening: try states(given.opening, "opening"),
                closing: try states(given.closing, "closing"))
        }
        var classes: [RoleName: String] = [:]
        for (role, deviceClass) in assistant.inputDeviceClasses {
            guard binding.inputs.contains(where: { $0.role == role }) else {
                throw refusal("\(assistant.keyPath).input_device_classes.\(role)", "\"\(role.shown)\" is not one of the binding's [inputs]",
                              hint: "its inputs: \(binding.inputs.map(\.role).joined(separator: ", "))")
            }
            classes[RoleName(role)] = deviceClass
        }
        homeAssistant = HomeAssistantHints(faultStates: faults, cover: cover, inputDeviceClasses: classes)
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
        let defaults = ChartSettings(timers: timers.map { .nanoseconds($0.delayNanoseconds) }, integers: integerDefaults)
        return SettingsDeclaration(section: name, defaults: defaults, keys: keys + integerKeys)
    }
}
