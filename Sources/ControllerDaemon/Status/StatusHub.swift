import ControllerFSM
import ControllerHost
import Turnstile

/// Where the daemon's threads leave what status needs, each its own part, and where readers
/// (HTTP, the control socket, systemd) take a consistent ``DaemonSnapshot``.
///
/// The event loop publishes live figures with ``publishLoop(state:events:lostEdges:)`` — a few
/// stores under a lock, no allocation; counts and credit come only from
/// ``publishDurable(counters:credit:)``, called after they were made durable.
public final class StatusHub: Sendable {
    /// How many transitions `/status` and `ctl events` show.
    public static let recentTransitionCount = 20

    private struct Parts {
        var phase = DaemonPhase.starting
        var degradedReason: String?
        var state = TurnstileState.locked
        var events = 0
        var lostEdges = 0
        var credit = 0
        var counters: [String: Int] = [:]
        var traceLosses = 0
        var recent: [TransitionSummary] = []
    }

    private let parts = Guarded(Parts())
    private let started: MachineInstant
    private let clock: MonotonicClock
    public let board: String
    public let chip: String
    private let inbox: CommandInbox?

    public init(board: String, chip: String, inbox: CommandInbox?, clock: MonotonicClock = MonotonicClock()) {
        self.board = board
        self.chip = chip
        self.inbox = inbox
        self.clock = clock
        started = clock.now()
        var zero: [String: Int] = [:]
        for name in TurnstileCounters.names { zero[name] = 0 }
        parts.withLock { $0.counters = zero }
    }

    public func publishPhase(_ phase: DaemonPhase, degradedReason: String?) {
        parts.withLock {
            $0.phase = phase
            $0.degradedReason = degradedReason
        }
    }

    /// From the event loop, after each turn.
    public func publishLoop(state: TurnstileState, events: Int, lostEdges: Int) {
        parts.withLock {
            $0.state = state
            $0.events = events
            $0.lostEdges = lostEdges
        }
    }

    /// Counts and credit that are durable now (committed to the store, or with no store, seen
    /// by the drain).
    public func publishDurable(counters: [String: Int], credit: Int) {
        parts.withLock {
            $0.counters = counters
            $0.credit = credit
        }
    }

    /// From the reporting thread: transitions it drained, and records lost so far.
    public func publishTransitions(_ transitions: [TransitionSummary], traceLosses: Int) {
        parts.withLock {
            $0.recent.append(contentsOf: transitions)
            if $0.recent.count > Self.recentTransitionCount {
                $0.recent.removeFirst($0.recent.count - Self.recentTransitionCount)
            }
            $0.traceLosses = traceLosses
        }
    }

    /// Seconds since the daemon started.
    public var uptimeSeconds: Double { clock.now().duration(since: started).secondsValue }

    public var phase: DaemonPhase { parts.withLock { $0.phase } }

    public func snapshot() -> DaemonSnapshot {
        let uptime = uptimeSeconds
        let depth = inbox?.depth ?? 0
        let dropped = inbox?.refusedCount ?? 0
        return parts.withLock { parts in
            DaemonSnapshot(
                phase: parts.phase.name, degradedReason: parts.degradedReason, state: parts.state.name,
                credit: parts.credit, counters: parts.counters, uptimeSeconds: uptime, board: board, chip: chip,
                events: parts.events, queueDepth: depth, droppedCommands: dropped, lostEdges: parts.lostEdges,
                traceLosses: parts.traceLosses, lastTransitions: parts.recent)
        }
    }
}

extension Duration {
    var secondsValue: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
