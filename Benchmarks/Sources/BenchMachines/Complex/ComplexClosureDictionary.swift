/// The complex machine on the closure-dictionary baseline, built in a loop from `ComplexRules`.
struct ComplexClosureDictionary {
    let machine: ClosureDictionaryMachine<ComplexState, ComplexEvent, ComplexContext>

    init() {
        machine = ClosureDictionaryMachine(initial: .s0, context: ComplexContext())
        for state in ComplexState.allCases {
            for event in ComplexEvent.allCases {
                let target = ComplexState(rawValue: ComplexRules.target(state.rawValue, event.rawValue))!
                switch ComplexRules.kind(state.rawValue, event.rawValue) {
                case .transition: machine.on(event, in: state, to: target)
                case .internalAction: machine.on(event, in: state) { c, _ in c.counter += 1 }
                case .guarded: machine.on(event, in: state, when: { $0.counter & 1 == 0 }, to: target)
                }
            }
        }
        machine.start()
    }

    var snapshot: ComplexSnapshot {
        ComplexSnapshot(state: machine.state, counter: machine.context.counter, ignored: machine.ignored)
    }
}
