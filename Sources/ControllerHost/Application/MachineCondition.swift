import ControllerFSM

/// A condition a declaration states over the machine and its context: an output's level, an
/// output's precondition, an interlock's yielding, an invariant.
///
/// It is written one of two ways, and Swift tells them apart by what the closure reads:
/// - over `state`, the machine's innermost state (the first region's, with parallel regions):
///   `{ state, context in state == .open && context.credit > 0 }`. Enough for a machine without
///   parallel regions, and what every declaration took before regions;
/// - over the whole `ActiveConfiguration`: `{ active, _ in active.isActive(.flashLit) }`, true
///   while `flashLit` is active in any region. A superstate is active while any state inside it is.
///
/// Call it as a function: `output.level(configuration, context)`, or `output.level(in: machine)`.
/// Either way the host evaluates it after every step without allocating; the first form costs
/// nothing more than it did, the second takes the configuration only when it is asked.
public struct MachineCondition<App: ControllerApplication>: Sendable {
    @usableFromInline
    enum Reading: Sendable {
        case state(@Sendable (App.State, App.Context) -> Bool)
        case configuration(@Sendable (ActiveConfiguration<App.State>, App.Context) -> Bool)
    }

    @usableFromInline let reading: Reading

    /// A condition over the innermost state (the first region's) and the context.
    public init(_ holds: @escaping @Sendable (App.State, App.Context) -> Bool) {
        reading = .state(holds)
    }

    /// A condition over every active state, of every region, and the context.
    @_disfavoredOverload
    public init(_ holds: @escaping @Sendable (ActiveConfiguration<App.State>, App.Context) -> Bool) {
        reading = .configuration(holds)
    }

    /// Whether the condition reads the whole configuration (not only the innermost state).
    public var readsConfiguration: Bool {
        if case .configuration = reading { return true }
        return false
    }

    /// Whether it holds for a machine whose innermost state is `state`, whose configuration
    /// `configuration` gives (asked only by a condition over the configuration), with `context`.
    @inlinable
    public func callAsFunction(
        _ state: App.State, _ context: App.Context, configuration: () -> ActiveConfiguration<App.State>
    ) -> Bool {
        switch reading {
        case .state(let holds): holds(state, context)
        case .configuration(let holds): holds(configuration(), context)
        }
    }

    /// Whether it holds for `configuration` with `context`.
    @inlinable
    public func callAsFunction(_ configuration: ActiveConfiguration<App.State>, _ context: App.Context) -> Bool {
        callAsFunction(configuration.state, context) { configuration }
    }

    /// Whether it holds for a running machine: its innermost state, its configuration and its
    /// context as they are now.
    @inlinable
    public func callAsFunction<Observer>(in machine: ObservedMachine<App.State, App.Event, App.Context, Observer>) -> Bool {
        callAsFunction(machine.state, machine.context) { machine.configuration }
    }
}

/// The active innermost states by name, for a report: `carsGo` without regions, `carsGo and
/// lit` with two (`activeStates`' order). The one wording of the simulator's summary, its broken
/// invariants and `explore()`'s violations.
package func activeStateNames<State: MachineSymbol>(_ states: [State]) -> String {
    states.map(\.name).joined(separator: " and ")
}
