import ControllerFSM

/// The complex machine on ControllerFSM: one `definition.state` block per state, written in a
/// loop from `ComplexRules` (the table the generated switches spell out).
enum ComplexMachine {
    static let table: TransitionTable<ComplexState, ComplexEvent, ComplexContext> = {
        do {
            return try definition().compile()
        } catch {
            fatalError("the complex machine's definition is invalid: \(error)")
        }
    }()

    static func definition() -> MachineDefinition<ComplexState, ComplexEvent, ComplexContext> {
        var definition = MachineDefinition<ComplexState, ComplexEvent, ComplexContext>(initial: .s0)
        let counterIsEven = Guard<ComplexContext>("counter is even") { $0.counter & 1 == 0 }
        for state in ComplexState.allCases {
            definition.state(state) { s in
                for event in ComplexEvent.allCases {
                    let target = ComplexState(rawValue: ComplexRules.target(state.rawValue, event.rawValue))!
                    switch ComplexRules.kind(state.rawValue, event.rawValue) {
                    case .transition: s.on(event, to: target)
                    case .internalAction: s.on(event) { c, _ in c.counter += 1 }
                    case .guarded: s.on(event, when: counterIsEven, to: target)
                    }
                }
            }
        }
        return definition
    }
}
