/// A machine as its author writes it: one block per state. `compile()` turns it, once, into the
/// fixed-size `TransitionTable` that dispatch uses.
///
/// ```swift
/// var definition = MachineDefinition<Door, DoorEvent, DoorContext>(initial: .closed)
/// definition.state(.closed) { s in
///     s.on(.open, to: .open) { c, _ in c.openings += 1 }
/// }
/// definition.state(.open) { s in
///     s.on(.close, to: .closed)
/// }
/// let table = try definition.compile()
/// ```
public struct MachineDefinition<State: MachineSymbol, Event: MachineSymbol, Context> {
    public let initial: State
    var blocks: [StateBlock<State, Event, Context>] = []

    public init(initial: State) {
        self.initial = initial
    }

    /// Writes the whole behaviour of `state` in `body`.
    public mutating func state(
        _ state: State,
        file: StaticString = #fileID, line: UInt = #line,
        _ body: (inout StateBlock<State, Event, Context>) -> Void
    ) {
        var block = StateBlock<State, Event, Context>(state: state, location: SourceLocation(file: file, line: line))
        body(&block)
        blocks.append(block)
    }

    /// Validates the definition and builds its transition table. Refuses, naming the state, the
    /// event and the source lines: a state without a block or with two, entry or exit work
    /// given twice, an event answered twice
    /// without a guard (or a row that can never run because an unguarded one precedes it), a
    /// state that nothing can reach, and enums whose raw values are not 0, 1, 2, … in order.
    /// States with no way out and events no state answers are reported as `warnings`.
    public func compile() throws(MachineDefinitionError) -> TransitionTable<State, Event, Context> {
        var problems: [DefinitionProblem] = []
        checkSymbolOrder(State.self, kind: "state", into: &problems)
        checkSymbolOrder(Event.self, kind: "event", into: &problems)
        if !problems.isEmpty { throw MachineDefinitionError(problems: problems) }

        let states = Array(State.allCases)
        var blockOfState = [Int](repeating: -1, count: states.count)
        for (position, block) in blocks.enumerated() {
            let existing = blockOfState[block.state.index]
            if existing >= 0 {
                problems.append(DefinitionProblem(
                    kind: .duplicateState, state: block.state.name, event: nil,
                    message: "\(block.location): state \(block.state.name) has a second block (the first is at \(blocks[existing].location)); write all of a state's behaviour in one block"))
            } else {
                blockOfState[block.state.index] = position
            }
        }
        for state in states where blockOfState[state.index] < 0 {
            problems.append(DefinitionProblem(
                kind: .missingState, state: state.name, event: nil,
                message: "state \(state.name) has no block; add definition.state(.\(state.name)) { … } (an empty block is fine for a state that answers nothing)"))
        }
        for block in blocks {
            problems += block.problems
            checkRows(of: block, into: &problems)
        }
        if problems.isEmpty {
            checkReachability(blockOfState: blockOfState, into: &problems)
        }
        if !problems.isEmpty { throw MachineDefinitionError(problems: problems) }
        return TransitionTable(definition: self, blockOfState: blockOfState, warnings: warnings(blockOfState: blockOfState))
    }

    private func checkSymbolOrder<Symbol: MachineSymbol>(_: Symbol.Type, kind: String, into problems: inout [DefinitionProblem]) {
        for (position, symbol) in Symbol.allCases.enumerated() where symbol.rawValue != position {
            problems.append(DefinitionProblem(
                kind: .symbolOrder, state: kind == "state" ? symbol.name : nil, event: kind == "event" ? symbol.name : nil,
                message: "\(kind) \(symbol.name) has raw value \(symbol.rawValue) but is case number \(position); declare the enum as `: Int` without explicit raw values"))
        }
    }

    private func checkRows(of block: StateBlock<State, Event, Context>, into problems: inout [DefinitionProblem]) {
        for event in Event.allCases {
            var unguarded: RowSpec<State, Event, Context>?
            for row in block.rows where row.event == event {
                if let earlier = unguarded {
                    let kind: DefinitionProblem.Kind = row.guard == nil ? .duplicateRow : .unreachableRow
                    let what = row.guard == nil
                        ? "answers \(event.name) twice without a guard (at \(earlier.location) and \(row.location)); give the first a guard or remove one"
                        : "has a row for \(event.name) at \(row.location) that can never run: the unguarded row at \(earlier.location) comes first; move the unguarded row last"
                    problems.append(DefinitionProblem(kind: kind, state: block.state.name, event: event.name, message: "\(row.location): state \(block.state.name) \(what)"))
                } else if row.guard == nil {
                    unguarded = row
                }
            }
        }
    }

    private func checkReachability(blockOfState: [Int], into problems: inout [DefinitionProblem]) {
        var reached = [Bool](repeating: false, count: blockOfState.count)
        var pending = [initial.index]
        reached[initial.index] = true
        while let state = pending.popLast() {
            for row in blocks[blockOfState[state]].rows {
                if let target = row.target, !reached[target.index] {
                    reached[target.index] = true
                    pending.append(target.index)
                }
            }
        }
        for state in State.allCases where !reached[state.index] {
            problems.append(DefinitionProblem(
                kind: .unreachableState, state: state.name, event: nil,
                message: "\(blocks[blockOfState[state.index]].location): state \(state.name) cannot be reached from the initial state \(initial.name); add a row that moves to it, or remove it"))
        }
    }

    private func warnings(blockOfState: [Int]) -> [String] {
        var warnings: [String] = []
        for block in blocks where !block.rows.contains(where: { $0.target != nil && $0.target! != block.state }) {
            warnings.append("\(block.location): state \(block.state.name) has no way out; once entered the machine stays there")
        }
        for event in Event.allCases where !blocks.contains(where: { $0.rows.contains { $0.event == event } }) {
            warnings.append("event \(event.name) is answered by no state; it will always be ignored")
        }
        return warnings
    }
}
