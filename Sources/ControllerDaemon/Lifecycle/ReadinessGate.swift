import ControllerFSM

/// What must be up before the daemon says it runs: the `running` line, the ready record and
/// systemd's `READY=1` wait here until every service that serves from the start is serving (the
/// status server listening, or having failed to), so that readiness means what it says — a
/// supervisor or a test that starts sending edges on `READY=1` meets a daemon whose start-up
/// work is done, not one still starting its HTTP server beside the event loop.
///
/// A service that never reports is not waited for past ``patience``: the daemon then goes on,
/// and says so.
public final class ReadinessGate: Sendable {
    /// How long readiness waits for the services it names.
    public static let patience = Duration.seconds(5)

    private struct State {
        var pending: Set<String>
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Guarded<State>
    private let sleep: @Sendable (Duration) async -> Void

    /// - Parameters:
    ///   - services: the services readiness waits for, by name (`"the status server"`); none:
    ///     open from the start.
    ///   - sleep: how the patience is waited out; returns early when its task is cancelled. A
    ///     daemon passes a timer that is not libdispatch's (`Task.sleep`'s timer starts
    ///     libdispatch's thread pool, which then wakes the process every second for ever).
    public init(waitingFor services: Set<String>, sleep: @escaping @Sendable (Duration) async -> Void = ReadinessGate.taskSleep) {
        state = Guarded(State(pending: services))
        self.sleep = sleep
    }

    /// `Task.sleep`, cancellation ending it early.
    public static let taskSleep: @Sendable (Duration) async -> Void = { try? await Task.sleep(for: $0) }

    /// `service` is up (or has given up for good): it no longer holds readiness back.
    public func serviceIsUp(_ service: String) {
        let resumed: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.pending.remove(service)
            guard state.pending.isEmpty else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in resumed { waiter.resume() }
    }

    /// The services still awaited.
    public var pending: Set<String> { state.withLock { $0.pending } }

    /// Returns once every service is up, or after `patience` with the ones still awaited.
    @discardableResult
    public func wait(patience: Duration = ReadinessGate.patience) async -> Set<String> {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { [self] in
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let open = state.withLock { state in
                        if state.pending.isEmpty { return true }
                        state.waiters.append(continuation)
                        return false
                    }
                    if open { continuation.resume() }
                }
            }
            group.addTask { [sleep] in await sleep(patience) }
            await group.next()
            // The other one: a sleep is cancelled; a waiter is resumed by opening the gate.
            group.cancelAll()
            let late = pending
            if !late.isEmpty { for service in late { serviceIsUp(service) } }
            await group.waitForAll()
            return late
        }
    }
}
