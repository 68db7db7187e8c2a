import ControllerFSM

/// An event an operator may send directly: what `ctl` and a scenario's `event NAME` may send.
/// Events a line alone must carry (money) and the machine's own timers are not among them.
public struct DirectCommand<App: ControllerApplication>: Sendable {
    public let event: App.Event
    public let summary: String

    public init(_ event: App.Event, summary: String = "") {
        self.event = event
        self.summary = summary
    }
}

/// What must hold after every step, whatever the inputs: the tests, `explore()`, `soak` and the
/// simulator check it.

public struct Invariant<App: ControllerApplication>: Sendable {
    public let name: String
    public let holds: MachineCondition<App>

    /// An invariant over the innermost state (the first region's) and the context.
    public init(_ name: String, holds: @escaping @Sendable (App.State, App.Context) -> Bool) {
        self.name = name
        self.holds = MachineCondition(holds)
    }

    /// An invariant over every active state, of every region, and the context: "the walk lamp
    /// is dark while the flasher is lit" reads both regions.
    @_disfavoredOverload
    public init(_ name: String, holds: @escaping @Sendable (ActiveConfiguration<App.State>, App.Context) -> Bool) {
        self.name = name
        self.holds = MachineCondition(holds)
    }
}
