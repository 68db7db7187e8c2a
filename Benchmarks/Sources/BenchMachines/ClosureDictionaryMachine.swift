/// The design most Swift state-machine libraries use, as a baseline: transitions in a
/// `[State: [Event: [Transition]]]` dictionary, behaviour in closures, entry and exit work in
/// dictionaries keyed by state. Written plainly, as such a library would be, without tuning.
final class ClosureDictionaryMachine<State: Hashable, Event: Hashable, Context> {
    typealias Action = (inout Context, _ state: State) -> Void

    struct Transition {
        let condition: ((Context) -> Bool)?
        /// `nil`: internal, only the action runs.
        let target: State?
        let action: Action?
    }

    private(set) var state: State
    var context: Context
    /// Events no transition took.
    private(set) var ignored = 0
    private var transitions: [State: [Event: [Transition]]] = [:]
    private var entryActions: [State: Action] = [:]
    private var exitActions: [State: Action] = [:]

    init(initial: State, context: Context) {
        state = initial
        self.context = context
    }

    /// A transition that runs `action`. (The action is not optional here so that a trailing
    /// closure is always the action, never the condition.)
    func on(
        _ event: Event, in state: State,
        when condition: ((Context) -> Bool)? = nil, to target: State? = nil,
        _ action: @escaping Action
    ) {
        add(Transition(condition: condition, target: target, action: action), for: event, in: state)
    }

    /// A transition without an action.
    func on(_ event: Event, in state: State, when condition: ((Context) -> Bool)? = nil, to target: State? = nil) {
        add(Transition(condition: condition, target: target, action: nil), for: event, in: state)
    }

    private func add(_ transition: Transition, for event: Event, in state: State) {
        transitions[state, default: [:]][event, default: []].append(transition)
    }

    func onEntry(_ state: State, _ action: @escaping Action) { entryActions[state] = action }
    func onExit(_ state: State, _ action: @escaping Action) { exitActions[state] = action }

    /// Runs the initial state's entry work.
    func start() {
        entryActions[state]?(&context, state)
    }

    /// Takes the first transition for `event` in the current state whose condition holds.
    @discardableResult
    func send(_ event: Event) -> Bool {
        guard let candidates = transitions[state]?[event] else {
            ignored += 1
            return false
        }
        for transition in candidates where transition.condition?(context) ?? true {
            if let target = transition.target {
                exitActions[state]?(&context, state)
                transition.action?(&context, state)
                state = target
                entryActions[target]?(&context, target)
            } else {
                transition.action?(&context, state)
            }
            return true
        }
        ignored += 1
        return false
    }
}
