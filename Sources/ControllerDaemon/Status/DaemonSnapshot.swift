/// Everything the daemon tells about itself at one moment: what `/status`, `/metrics`,
/// `ctl status` and systemd's `STATUS=` are made from. It names no application's words: the
/// state, counters and gauges are the declaration's, by name.
///
/// Counts and gauges are the durable ones: what the store has committed (or, with no store,
/// what the ledger drain has seen). The daemon never reports a count it could lose.
///
/// In JSON each gauge is a key of its own beside the fixed ones (`"credit": 0`), as `/status`
/// showed the turnstile's credit before gauges were declared; a reader takes every other
/// integer key as a gauge.
public struct DaemonSnapshot: Codable, Sendable, Equatable {
    /// The daemon's own life: starting, selfTest, running, draining, stopped or degraded.
    public var phase: String
    /// Why the daemon is degraded (the chip or the store lost), when it is.
    public var degradedReason: String?
    /// The machine's state as the controller last reported it: the innermost one.
    public var state: String
    /// In a machine with superstates, the superstates around `state`, innermost first, then,
    /// with parallel regions, those around ``alsoActive``'s states not named yet (the active
    /// configuration is `state`, `alsoActive` and these); empty for a flat machine.
    public var superstates: [String]
    /// The durable gauges by name (`ControllerApplication/gauges`: the turnstile's credit).
    public var gauges: [String: Int]
    /// The durable counters, since the store was created (or since start, with no store).
    public var counters: [String: Int]
    /// Seconds since the daemon started.
    public var uptimeSeconds: Double
    public var board: String
    /// The chip's name and label (`gpiochip0 [pinctrl-bcm2711]`, or the simulated chip's).
    public var chip: String
    /// Events dispatched since start.
    public var events: Int
    /// Commands waiting for the event loop.
    public var queueDepth: Int
    /// Commands refused because the event loop's inbox was full.
    public var droppedCommands: Int
    /// Input edges the kernel lost before they were read.
    public var lostEdges: Int
    /// Trace, ledger and output-log records lost because a ring was full.
    public var traceLosses: Int
    /// The last transitions, oldest first.
    public var lastTransitions: [TransitionSummary]
    /// The site's MQTT broker, when the daemon publishes to one (`run --mqtt`).
    public var site: SiteSnapshot?
    /// Episodes in which the host held an output at a level other than the one the machine
    /// asked for (an interlock, a failed write), since start.
    public var outputOverrides: Int
    /// Steps of the machine that reached a bound of `MachineLimits` and were ended, since start
    /// (the first one degraded the daemon: `degradedReason` names what repeated).
    public var unsettledSteps: Int
    /// Events the machine's work sent while its run-to-completion queue was full, lost (each
    /// counted: `MachineStatistics.droppedSends`).
    public var droppedSends: Int
    /// The outputs held so now, each with why (`"held off by its interlock"`).
    public var heldOutputs: [String: String]
    /// Every output the board wires, in declaration order: its level now and what that means.
    public var outputs: [OutputStatus]
    /// With parallel regions, the other active innermost states (one per other region), in
    /// declaration order: the active configuration is `state`, these, and ``superstates``.
    /// Empty without regions.
    public var alsoActive: [String]
    /// Every level and condition input the application declares, by role: on (a level input's
    /// line active, a condition held by its line or a command) or off. Nil for an application
    /// with pulses alone.
    public var inputs: [String: Bool]?

    public init(
        phase: String, degradedReason: String? = nil, state: String, gauges: [String: Int], counters: [String: Int],
        uptimeSeconds: Double, board: String, chip: String, events: Int, queueDepth: Int,
        droppedCommands: Int, lostEdges: Int, traceLosses: Int, lastTransitions: [TransitionSummary], site: SiteSnapshot? = nil,
        outputOverrides: Int = 0, heldOutputs: [String: String] = [:], superstates: [String] = [], outputs: [OutputStatus] = [],
        alsoActive: [String] = [], inputs: [String: Bool]? = nil, unsettledSteps: Int = 0, droppedSends: Int = 0
    ) {
        self.unsettledSteps = unsettledSteps
        self.droppedSends = droppedSends
        self.inputs = inputs
        self.superstates = superstates
        self.alsoActive = alsoActive
        self.outputs = outputs
        self.outputOverrides = outputOverrides
        self.heldOutputs = heldOutputs
        self.phase = phase
        self.degradedReason = degradedReason
        self.state = state
        self.gauges = gauges
        self.counters = counters
        self.uptimeSeconds = uptimeSeconds
        self.board = board
        self.chip = chip
        self.events = events
        self.queueDepth = queueDepth
        self.droppedCommands = droppedCommands
        self.lostEdges = lostEdges
        self.traceLosses = traceLosses
        self.lastTransitions = lastTransitions
        self.site = site
    }
}

/// Where publishing to the site's broker stands.
public struct SiteSnapshot: Codable, Sendable, Equatable {
    /// The broker's URL and the node's id on it.
    public var broker: String
    public var node: String
    /// Whether the broker has accepted the current connection.
    public var connected: Bool
    /// Counted events the broker has not acknowledged yet (the outbox's depth).
    public var outboxDepth: Int
    /// The highest sequence up to which the broker has acknowledged every event.
    public var deliveredSequence: Int64
    /// This process's claim on the node id (a random id made at start), published retained.
    public var instance: String?
    /// Another live controller claimed the same node id on this broker: nil while none has.
    public var conflict: SiteConflict?
    /// Connections the broker closed within seconds of accepting them: another client with
    /// the same client id takes the session over each time it connects.
    public var quickDisconnects: Int?

    public init(
        broker: String, node: String, connected: Bool, outboxDepth: Int, deliveredSequence: Int64, instance: String? = nil,
        conflict: SiteConflict? = nil, quickDisconnects: Int? = nil
    ) {
        self.broker = broker
        self.node = node
        self.connected = connected
        self.outboxDepth = outboxDepth
        self.deliveredSequence = deliveredSequence
        self.instance = instance
        self.conflict = conflict
        self.quickDisconnects = quickDisconnects
    }
}

/// Another controller that claimed this node's id on the same broker.
public struct SiteConflict: Codable, Sendable, Equatable {
    /// Its instance id, host, process id and start (Unix nanoseconds), as its claim says.
    public var instance: String
    public var host: String
    public var pid: Int64
    public var since: Int64
    /// True: this controller started later and stopped publishing (its events wait in its
    /// outbox); false: the other one did.
    public var yielded: Bool

    public init(instance: String, host: String, pid: Int64, since: Int64, yielded: Bool) {
        self.instance = instance
        self.host = host
        self.pid = pid
        self.since = since
        self.yielded = yielded
    }
}

/// One transition, as status reports it.
public struct TransitionSummary: Codable, Sendable, Equatable {
    /// Seconds since the daemon started.
    public var time: Double
    public var from: String
    public var event: String
    public var to: String
    /// `true` for a row that stays in its state, exiting and entering nothing (`"internal"`;
    /// absent otherwise).
    public var isInternal: Bool?
    /// The superstate whose row was taken, when not the source's own (`"row"`; absent for a flat
    /// machine's rows).
    public var row: String?

    enum CodingKeys: String, CodingKey {
        case time, from, event, to, row
        case isInternal = "internal"
    }

    public init(time: Double, from: String, event: String, to: String, isInternal: Bool = false, row: String? = nil) {
        self.time = time
        self.from = from
        self.event = event
        self.to = to
        self.isInternal = isInternal ? true : nil
        self.row = row
    }
}

/// One output as `/status` shows it: `unlock_outer = 1 (released)`, and why the host holds it at
/// a level the machine did not ask for, when it does.
public struct OutputStatus: Codable, Sendable, Equatable {
    /// The role's name (its key under `[outputs]` in the board file).
    public var name: String
    /// The logical level written last: 1 asserted, 0 not.
    public var level: Int
    /// What that level means (`released`), when the application says.
    public var meaning: String?
    /// Why the host holds it so (`held off by its interlock`, a failed write), when it does.
    public var held: String?

    public init(name: String, level: Int, meaning: String? = nil, held: String? = nil) {
        self.name = name
        self.level = level
        self.meaning = meaning
        self.held = held
    }

    /// `unlock_outer = 1 (released; held off by its interlock)`.
    public var description: String {
        let notes = [meaning, held].compactMap { $0 }
        return "\(name) = \(level)" + (notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))")
    }
}
