import ControllerFSM

/// The lifecycle machine shared by the threads that move it: the main task (start, signals),
/// the event loop (a lost chip), the store's thread (a lost store). Each change is told to
/// `onChange` (status, systemd, the log) outside the lock, in the order the changes happened.
public final class LifecycleHolder: Sendable {
    private let machine: Guarded<DaemonLifecycle.Machine>
    private let onChange: @Sendable (DaemonPhase, DaemonLifecycleContext) -> Void
    /// Serialises the change notices, so two threads' changes are told in their order. A lock,
    /// not a `Guarded<Void>`: an empty guarded value has no storage of its own, and
    /// ThreadSanitizer took the accesses to it for accesses to the object's header.
    private let notices = MutexLock()

    public init(onChange: @escaping @Sendable (DaemonPhase, DaemonLifecycleContext) -> Void) {
        machine = Guarded(DaemonLifecycle.makeMachine())
        self.onChange = onChange
    }

    /// Sends `event`; returns the phase after it.
    @discardableResult
    public func send(_ event: DaemonLifecycleEvent) -> DaemonPhase {
        notices.withLock {
            let (before, after, context) = machine.withLock { machine in
                let before = machine.state
                machine.send(event, at: .zero)
                return (before, machine.state, machine.context)
            }
            if before != after || event == .chipLost || event == .storeLost || event == .recovered || event == .storeRecovered
                || event == .machineUnsettled {
                onChange(after, context)
            }
            return after
        }
    }

    /// The controller's machine did not settle (`report` says what it repeated): degraded, for
    /// good. Each report is told, so the reason follows the latest.
    @discardableResult
    public func machineDidNotSettle(_ report: String) -> DaemonPhase {
        machine.withLock { $0.context.unsettledMachine = report }
        return send(.machineUnsettled)
    }

    public var phase: DaemonPhase { machine.withLock { $0.state } }
    public var context: DaemonLifecycleContext { machine.withLock { $0.context } }
}
